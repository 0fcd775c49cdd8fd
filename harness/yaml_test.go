package harness_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
)

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const specYAML = `commands:
  git:
    anything: [the wrapped loader reads this, not harness]
tools:
  logs:
    description: Read a unit's journal.
    input:
      type: object
      properties:
        unit: {type: string, description: The unit to read.}
        lines: {type: integer}
        follow: {type: boolean}
        tags: {type: array, items: {type: string}}
      required: [unit]
    replaces: ["journalctl", "systemctl status"]
    annotations: {read_only: true}
    run: [/usr/local/bin/meshctl, call, logs]
  probe:
    description: Report.
    output: {type: object}
    annotations: {destructive: false, idempotent: true, open_world: true}
    run: [./bin/probe, echo]
`

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "tools.yaml", specYAML)
	tools, err := harness.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 {
		t.Fatalf("got %d tools", len(tools))
	}
	logs, probe := tools[0].(*harness.Tool), tools[1].(*harness.Tool)
	if logs.Name() != "logs" || logs.Kind() != kernel.Harness || logs.Description() != "Read a unit's journal. Use instead of: journalctl, systemctl status." {
		t.Errorf("logs: %q %q %q", logs.Name(), logs.Kind(), logs.Description())
	}
	const schema = `{"properties":{"follow":{"type":"boolean"},"lines":{"type":"integer"},"tags":{"items":{"type":"string"},"type":"array"},"unit":{"description":"The unit to read.","type":"string"}},"required":["unit"],"type":"object"}`
	if string(logs.InputSchema()) != schema {
		t.Errorf("input schema %s", logs.InputSchema())
	}
	if a := logs.Annotations(); !a.ReadOnly || a.Destructive || a.Idempotent || a.OpenWorld {
		t.Errorf("logs annotations %+v", a)
	}
	if a := probe.Annotations(); a.ReadOnly || a.Destructive || !a.Idempotent || !a.OpenWorld {
		t.Errorf("probe annotations %+v", a)
	}
	if string(probe.OutputSchema()) != `{"type":"object"}` || string(probe.InputSchema()) != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Errorf("probe schemas %s %s", probe.InputSchema(), probe.OutputSchema())
	}
	// The flags of a YAML tool work as for any other.
	if _, err := logs.ParseInput([]string{"--unti"}, nil); err == nil || err.Error() != "logs: unknown flag '--unti'; allowed: --follow, --json, --lines, --tags, --unit" {
		t.Errorf("ParseInput: %v", err)
	}
}

// TestLoadFileRelativeRun runs a tool whose program path is relative to
// the tools file.
func TestLoadFileRelativeRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(helperPath, filepath.Join(dir, "bin", "probe")); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, dir, "tools.yaml", "tools:\n  probe:\n    input: {type: object, properties: {unit: {type: string}}}\n    run: [./bin/probe, "+helperArg+", echo]\n")
	tools, err := harness.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := session(t, tools, kernel.SessionOptions{})
	res := run(t, s, "probe --unit x")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, `"stdin":"{\"unit\":\"x\"}\n"`) {
		t.Errorf("code %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestLoadFileErrors checks each error's exact line, a schema's compile
// error included.
func TestLoadFileErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown top key", "tool: {}\n", "1:1: unknown key 'tool'; allowed: commands, tools"},
		{"top not a mapping", "- a\n", "1:1: want a mapping with the keys commands and/or tools"},
		{"tools not a mapping", "tools: [a]\n", "1:8: tools: want a mapping of tool names to declarations"},
		{"bad name", "tools:\n  Logs: {run: [/x]}\n", `2:3: tool name "Logs" must match [a-z][a-z0-9_-]{0,47}`},
		{"declared twice", "tools:\n  a: {run: [/x]}\n  a: {run: [/y]}\n", "3:3: tool a declared twice (first at line 2)"},
		{"not a mapping", "tools:\n  a: x\n", "2:6: tool a: want a mapping with keys annotations, description, env, input, network, output, pass_env, read_paths, replaces, run, write_paths"},
		{"unknown key", "tools:\n  a:\n    run: [/x]\n    dscription: y\n", "4:5: tool a: unknown key 'dscription'; allowed: annotations, description, env, input, network, output, pass_env, read_paths, replaces, run, write_paths"},
		{"key twice", "tools:\n  a:\n    run: [/x]\n    run: [/y]\n", "4:5: tool a: run given twice"},
		{"missing run", "tools:\n  a:\n    description: y\n", "2:3: tool a: missing key 'run' (the command to execute, e.g. [/usr/local/bin/meshctl, call, logs])"},
		{"run a string", "tools:\n  a: {run: meshctl call logs}\n", "2:12: tool a: run: want a list of strings, e.g. [a, b]"},
		{"run empty", "tools:\n  a: {run: []}\n", "2:12: tool a: run: want the command to execute, e.g. [/usr/local/bin/meshctl, call, logs]"},
		{"run empty word", "tools:\n  a: {run: ['']}\n", "2:13: tool a: run: want a non-empty string"},
		{"description not text", "tools:\n  a: {run: [/x], description: [y]}\n", "2:31: tool a: description: want a string"},
		{"replaces not a list", "tools:\n  a: {run: [/x], replaces: journalctl}\n", "2:28: tool a: replaces: want a list of strings, e.g. [a, b]"},
		{"annotations unknown", "tools:\n  a:\n    run: [/x]\n    annotations: {readonly: true}\n", "4:19: tool a: annotations: unknown key 'readonly'; allowed: destructive, idempotent, open_world, read_only"},
		{"annotations not bool", "tools:\n  a:\n    run: [/x]\n    annotations: {read_only: yes}\n", "4:30: tool a: annotations: read_only: want true or false"},
		{"input not a mapping", "tools:\n  a:\n    run: [/x]\n    input: object\n", "4:12: tool a: input: want a JSON Schema object (a mapping)"},
		{"input bad schema", "tools:\n  a:\n    run: [/x]\n    input: {type: objekt}\n", "4:12: tool a: input schema: at '/type': type: unknown type 'objekt'; allowed: array, boolean, integer, null, number, object, string"},
		{"input not an object", "tools:\n  a:\n    run: [/x]\n    input: {type: string}\n", "4:12: tool a: input schema must describe an object (type: object), not \"string\""},
		{"input key twice", "tools:\n  a:\n    run: [/x]\n    input: {type: object, type: object}\n", "4:27: tool a: input: key 'type' given twice"},
		{"input non-JSON number", "tools:\n  a:\n    run: [/x]\n    input: {maximum: .inf}\n", "4:22: tool a: input: .inf is not a JSON value"},
		{"output bad schema", "tools:\n  a:\n    run: [/x]\n    output: {minimum: a}\n", "4:13: tool a: output schema: at '/minimum': minimum: must be a number, not string"},
		{"run not on PATH", "tools:\n  a:\n    run: [no-such-program-here, x]\n", "3:11: tool a: run: program 'no-such-program-here' not found in PATH"},
		{"pass_env an injection variable", "tools:\n  a:\n    run: [/x]\n    pass_env: [HOME, LD_PRELOAD]\n", "4:22: tool a: pass_env: 'LD_PRELOAD' makes the program load or run code it names, so the agent's value may not reach it; pin it under env: to set it on purpose"},
		{"pass_env not a name", "tools:\n  a:\n    run: [/x]\n    pass_env: [A-B]\n", "4:16: tool a: pass_env: 'A-B' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)"},
		{"pass_env twice", "tools:\n  a:\n    run: [/x]\n    pass_env: [A, A]\n", "4:19: tool a: pass_env: 'A' listed twice"},
		{"pass_env a string", "tools:\n  a:\n    run: [/x]\n    pass_env: A\n", "4:15: tool a: pass_env: want a list of strings, e.g. [a, b]"},
		{"env not a mapping", "tools:\n  a:\n    run: [/x]\n    env: [A]\n", "4:10: tool a: env: want a mapping of variable names to values, e.g. {LANG: C.UTF-8}"},
		{"env not a name", "tools:\n  a:\n    run: [/x]\n    env: {A=B: x}\n", "4:11: tool a: env: 'A=B' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)"},
		{"network not a boolean", "tools:\n  a:\n    run: [/x]\n    network: yes please\n", "4:14: tool a: network: want true or false"},
		{"network a list", "tools:\n  a:\n    run: [/x]\n    network: [true]\n", "4:14: tool a: network: want true or false"},
		{"read_paths a string", "tools:\n  a:\n    run: [/x]\n    read_paths: /usr\n", "4:17: tool a: read_paths: want a list of paths, e.g. [/var/cache/tool]"},
		{"write_paths an empty path", "tools:\n  a:\n    run: [/x]\n    write_paths: [/tmp, '']\n", "4:25: tool a: write_paths: want a path"},
		{"read_paths missing", "tools:\n  a:\n    run: [/x]\n    read_paths: [/usr, /no/such/share]\n", "4:24: tool a: read_paths: '/no/such/share' does not exist; allowed: existing files and directories"},
		{"write_paths missing", "tools:\n  a:\n    run: [/x]\n    write_paths: [/no/such/cache]\n", "4:19: tool a: write_paths: '/no/such/cache' does not exist; allowed: existing files and directories"},
		{"yaml syntax", "tools:\n  a: [\n", "2:1: did not find expected node content"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, "tools.yaml", tt.src)
			_, err := harness.LoadFile(path)
			if want := path + ":" + tt.want; err == nil || err.Error() != want {
				t.Errorf("LoadFile:\n got %v\nwant %s", err, want)
			}
			var le *harness.LoadError
			if err != nil && !errors.As(err, &le) {
				t.Errorf("error %T is not a *LoadError", err)
			}
		})
	}
}

func TestDecodeYAMLEmpty(t *testing.T) {
	for _, src := range []string{"", "tools:\n", "tools: ~\n", "commands: {}\n"} {
		path := writeFile(t, t.TempDir(), "t.yaml", src)
		tools, err := harness.LoadFile(path)
		if err != nil || len(tools) != 0 {
			t.Errorf("%q: %v %v", src, tools, err)
		}
	}
	if tools, err := harness.DecodeYAML("x.yaml", nil); err != nil || tools != nil {
		t.Errorf("DecodeYAML(nil) = %v %v", tools, err)
	}
}

// FuzzDecodeYAML decodes arbitrary tools files: never a panic, and an
// error is one line with the file's name.
func FuzzDecodeYAML(f *testing.F) {
	f.Add(specYAML)
	f.Add("tools:\n  a: {run: [/x], input: {type: object, properties: {n: {type: integer, minimum: 1}}}}\n")
	f.Add("tools:\n  a: &x {run: [/x]}\n  b: *x\n")
	f.Add("tools:\n  a: {run: [/x], input: {properties: {a: &p {type: string}, b: *p}}}\n")
	f.Add("tools:\n  a: {run: [/x], input: {<<: {type: object}}}\n")
	f.Add("tools: {a: {run: [/x], replaces: [' ']}}")
	f.Add("tools:\n  a: {run: [/x], network: true, read_paths: [/usr, .], write_paths: [/tmp, nowhere]}\n")
	f.Add("tools:\n  a: {run: [/x], network: [x], read_paths: &p [\"\\0\", ''], write_paths: *p}\n")
	f.Fuzz(func(t *testing.T, src string) {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(src), &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			return
		}
		top := doc.Content[0]
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value != "tools" {
				continue
			}
			_, err := harness.DecodeYAML("f.yaml", top.Content[i+1])
			if err != nil && (!strings.HasPrefix(err.Error(), "f.yaml:") || strings.Contains(err.Error(), "\n")) {
				t.Errorf("error %q", err)
			}
		}
	})
}

// TestExampleFile loads examples/harness.yaml and runs its word_count
// tool. The file names python3 bare, which is looked up at load.
func TestExampleFile(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	tools, err := harness.LoadFile(filepath.Join("..", "examples", "harness.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name())
	}
	if strings.Join(names, " ") != "logs restart word_count" {
		t.Fatalf("tools %q", names)
	}
	// The description with a comma is the whole text, not a key of null.
	const logsInput = `{"additionalProperties":false,"properties":{"follow":{"description":"Keep printing new lines.","type":"boolean"},"lines":{"description":"How many lines, newest last.","minimum":1,"type":"integer"},"tags":{"description":"Only lines with these tags.","items":{"type":"string"},"type":"array"},"unit":{"description":"The unit to read.","type":"string"}},"required":["unit"],"type":"object"}`
	if got := string(tools[0].InputSchema()); got != logsInput {
		t.Errorf("logs input schema\n got %s\nwant %s", got, logsInput)
	}
	s := session(t, tools, kernel.SessionOptions{})
	const refused = "shelter: 'wc -w notes.txt' is done with the tool 'word_count' here (Count the words of files under the working directory.); call word_count instead — nothing ran\n"
	if res := run(t, s, "touch marker; wc -w notes.txt"); res.ExitCode != 2 || !res.Rejected || res.Stderr != refused {
		t.Errorf("wc -w: code %d stderr %q", res.ExitCode, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "marker")); !os.IsNotExist(err) {
		t.Errorf("wc -w: the marker exists: something ran (%v)", err)
	}
	if res := run(t, s, "logs --unit x --lines 0"); res.ExitCode != 2 || len(res.Issues) != 1 || res.Issues[0].Message != "logs: property 'lines': minimum: got 0, want 1; allowed: (none)" {
		t.Errorf("lines 0: code %d issues %+v", res.ExitCode, res.Issues)
	}
	writeFile(t, s.Dir(), "notes.txt", "three little words\n")
	res := run(t, s, "word_count --paths notes.txt")
	if res.ExitCode != 0 || string(res.Data) != `{"notes.txt":3}` {
		t.Errorf("word_count: code %d data %s stderr %q", res.ExitCode, res.Data, res.Stderr)
	}
}
