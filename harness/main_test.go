package harness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/builtins"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

// helperArg makes the test binary act as an executable tool: it reports
// what it was given as JSON on stdout.
const helperArg = "harness-test-helper"

// helperPath is the test binary, run as the helper.
var helperPath string

func TestMain(m *testing.M) {
	spawn.Init() // confined children start through this binary
	if len(os.Args) > 2 && os.Args[1] == helperArg {
		os.Exit(helper(os.Args[2]))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	helperPath = exe
	os.Exit(m.Run())
}

// report is what the helper prints in "echo" mode.
type report struct {
	Stdin string   `json:"stdin"`
	Dir   string   `json:"dir"`
	Env   []string `json:"env"`
	Args  []string `json:"args"`
}

// helper is the executable tool: "echo" reports stdin, cwd, env and argv
// and exits with the input's "exit" property, printing its "say" on
// stderr; "text" prints a line that is not JSON; "number" prints 42.
func helper(mode string) int {
	in, _ := io.ReadAll(os.Stdin)
	switch mode {
	case "text":
		fmt.Println("not json")
		return 0
	case "number":
		fmt.Println("42")
		return 0
	}
	var input struct {
		Exit int    `json:"exit"`
		Say  string `json:"say"`
	}
	json.Unmarshal(in, &input)
	dir, _ := os.Getwd()
	b, _ := json.Marshal(report{Stdin: string(in), Dir: dir, Env: os.Environ(), Args: os.Args[1:]})
	fmt.Println(string(b))
	if input.Say != "" {
		fmt.Fprintln(os.Stderr, input.Say)
	}
	return input.Exit
}

// session opens a session of a kernel with tools, in a temp dir, closed
// at the end of the test.
func session(t testing.TB, tools []kernel.Tool, opts kernel.SessionOptions) *kernel.Session {
	t.Helper()
	// The launchers, job control and help, as the CLI registers them.
	k, err := kernel.New(kernel.Config{Tools: append(builtins.Launchers(), tools...)})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	// A race-enabled helper otherwise sleeps a second before it exits.
	env := map[string]string{"GORACE": "atexit_sleep_ms=0"}
	for k, v := range opts.Env {
		env[k] = v
	}
	opts.Env = env
	opts.DiscardSpills = true // tests leave nothing behind
	s, err := k.NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func run(t testing.TB, s *kernel.Session, script string) kernel.Result {
	t.Helper()
	res, err := s.Run(context.Background(), script, kernel.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// fakeBin makes a directory of programs that append their argv to the
// file $RAN when they run.
func fakeBin(t testing.TB, names ...string) (bin, ran string) {
	t.Helper()
	bin = t.TempDir()
	ran = filepath.Join(t.TempDir(), "ran")
	for _, n := range names {
		script := "#!/bin/sh\necho \"" + n + " $*\" >> \"$RAN\"\n"
		if err := os.WriteFile(filepath.Join(bin, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, ran
}

// ranLines returns what the fake programs recorded.
func ranLines(t testing.TB, ran string) []string {
	t.Helper()
	b, err := os.ReadFile(ran)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
