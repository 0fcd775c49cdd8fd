package harness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
)

// A Go-function tool registered in a kernel, called from the shell with
// flags; the commands it replaces are refused and name it instead.
func Example() {
	logs, err := harness.Func(harness.Def{
		Name:        "logs",
		Description: "Read a unit's journal.",
		Input: json.RawMessage(`{
			"type": "object",
			"properties": {
				"unit":  {"type": "string", "description": "The unit to read."},
				"lines": {"type": "integer"}
			},
			"required": ["unit"],
			"additionalProperties": false
		}`),
		Replaces:    []string{"journalctl", "systemctl status"},
		Annotations: harness.Annotations{ReadOnly: true},
	}, func(ctx context.Context, in harness.Input) (any, error) {
		var args struct {
			Unit  string `json:"unit"`
			Lines int    `json:"lines"`
		}
		if err := json.Unmarshal(in.Args, &args); err != nil {
			return nil, err
		}
		// in.Caller is the session's identity, set by the embedder.
		return map[string]any{"unit": args.Unit, "lines": args.Lines, "asked_by": in.Caller.Agent}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	k, err := kernel.New(kernel.Config{Tools: []kernel.Tool{logs}})
	if err != nil {
		log.Fatal(err)
	}
	workdir, err := os.MkdirTemp("", "harness-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(workdir)
	s, err := k.NewSession(kernel.SessionOptions{Dir: workdir, Caller: kernel.Caller{Agent: "planner"}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	res, _ := s.Run(ctx, "logs --unit nginx --lines 5", kernel.RunOptions{})
	fmt.Print(res.Stdout)
	fmt.Println(string(res.Data))

	res, _ = s.Run(ctx, "logs --unti nginx", kernel.RunOptions{})
	fmt.Println(res.ExitCode, res.Issues[0].Message)

	res, _ = s.Run(ctx, "touch marker; sudo journalctl -u nginx", kernel.RunOptions{})
	fmt.Println(res.ExitCode, res.Issues[0].Message)

	fmt.Println(logs.Description())
	// Output:
	// {"asked_by":"planner","lines":5,"unit":"nginx"}
	// {"asked_by":"planner","lines":5,"unit":"nginx"}
	// 2 logs: unknown flag '--unti'; allowed: --json, --lines, --unit
	// 2 shelter: 'sudo journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — nothing ran
	// Read a unit's journal. Use instead of: journalctl, systemctl status.
}

// An executable tool reads its input as one line of JSON on stdin; here
// the program is cat, so the tool prints its own input.
func ExampleExec() {
	show, err := harness.Exec(harness.Def{
		Name:  "show",
		Input: json.RawMessage(`{"type":"object","properties":{"unit":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}}}`),
	}, []string{"cat"})
	if err != nil {
		log.Fatal(err)
	}
	k, _ := kernel.New(kernel.Config{Tools: []kernel.Tool{show}})
	s, _ := k.NewSession(kernel.SessionOptions{})
	defer s.Close()
	res, _ := s.Run(context.Background(), "show --unit nginx --tags a,b --tags c; echo '{\"unit\":\"x\"}' | show", kernel.RunOptions{})
	fmt.Print(res.Stdout)
	// Output:
	// {"tags":["a","b","c"],"unit":"nginx"}
	// {"unit":"x"}
}

// ParseArgs is the shell mapping alone: words onto a schema's properties.
func ExampleParseArgs() {
	schema := json.RawMessage(`{"type":"object","properties":{
		"max_lines": {"type": "integer"},
		"follow": {"type": "boolean"},
		"tags": {"type": "array", "items": {"type": "string"}}}}`)
	input, _ := harness.ParseArgs("logs", schema, []string{"--max-lines", "50", "--follow", "--tags", "a,b"}, nil)
	fmt.Println(string(input))
	_, err := harness.ParseArgs("logs", schema, []string{"--max-lines=1.9"}, nil)
	fmt.Println(err)
	_, err = harness.ParseArgs("logs", schema, []string{"--follow=yes"}, nil)
	fmt.Println(err)
	// Output:
	// {"follow":true,"max_lines":50,"tags":["a","b"]}
	// logs: invalid --max-lines '1.9'; allowed: an integer (base 10)
	// logs: invalid --follow 'yes'; allowed: a boolean (write --follow, --follow=true or --follow=false)
}

// LoadFile reads the executable tools of a tools file.
func ExampleLoadFile() {
	dir, _ := os.MkdirTemp("", "harness-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tools.yaml")
	os.WriteFile(path, []byte(`
tools:
  logs:
    description: Read a unit's journal.
    input:
      type: object
      properties:
        unit: {type: string, description: The unit to read.}
      required: [unit]
    replaces: [journalctl]
    annotations: {read_only: true}
    run: [/usr/local/bin/meshctl, call, logs]
`), 0o644)
	tools, err := harness.LoadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Println(t.Name(), t.Kind(), t.Description())
		fmt.Print(strings.SplitAfter(kernel.ToolHelp(t), "\n")[0])
	}
	// Output:
	// logs harness Read a unit's journal. Use instead of: journalctl.
	// usage: logs --unit STRING
}
