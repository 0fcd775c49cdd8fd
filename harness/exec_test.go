package harness_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
)

const probeSchema = `{
  "type": "object",
  "properties": {
    "unit": {"type": "string"},
    "lines": {"type": "integer"},
    "exit": {"type": "integer"},
    "say": {"type": "string"}
  },
  "additionalProperties": false
}`

func execTool(t testing.TB, name, output string, argv ...string) kernel.Tool {
	t.Helper()
	tool, err := harness.Exec(harness.Def{Name: name, Description: "Report what it was given.", Input: json.RawMessage(probeSchema), Output: json.RawMessage(output)}, argv)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// envFunc answers with the environment a Go-function tool is handed.
func envFunc(t testing.TB) kernel.Tool {
	tool, err := harness.Func(harness.Def{Name: "envfunc"}, func(_ context.Context, in harness.Input) (any, error) {
		return in.Env, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestExecutableGetsInputDirAndEnv(t *testing.T) {
	t.Setenv("SHELTER_TEST_SECRET", "hunter2")
	s := session(t, []kernel.Tool{execTool(t, "probe", "", helperPath, helperArg, "echo"), envFunc(t)},
		kernel.SessionOptions{Env: map[string]string{"FROM_EMBEDDER": "yes"}})
	if err := os.Mkdir(filepath.Join(s.Dir(), "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, s, "cd sub; export FROM_SCRIPT=1; NOT_EXPORTED=1; probe --unit nginx --lines 50")
	if res.ExitCode != 0 {
		t.Fatalf("code %d stderr %q", res.ExitCode, res.Stderr)
	}
	var got report
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil {
		t.Fatalf("stdout %q: %v", res.Stdout, err)
	}
	if want := `{"lines":50,"unit":"nginx"}` + "\n"; got.Stdin != want {
		t.Errorf("stdin = %q, want %q", got.Stdin, want)
	}
	if !sameDir(got.Dir, s.Dir()) || filepath.Base(got.Dir) != "sub" {
		t.Errorf("dir = %q, want the session's %q", got.Dir, s.Dir())
	}
	if strings.Join(got.Args, " ") != helperArg+" echo" {
		t.Errorf("args = %q", got.Args)
	}
	// The environment is the session's exported one, exactly: the same a
	// Go-function tool is handed.
	res = run(t, s, "envfunc")
	var funcEnv []string
	if err := json.Unmarshal(res.Data, &funcEnv); err != nil {
		t.Fatalf("envfunc: %s %v", res.Data, err)
	}
	childEnv := slices.Clone(got.Env)
	slices.Sort(childEnv)
	slices.Sort(funcEnv)
	if !slices.Equal(childEnv, funcEnv) {
		t.Errorf("child env:\n%q\nsession env:\n%q", childEnv, funcEnv)
	}
	for _, want := range []string{"FROM_EMBEDDER=yes", "FROM_SCRIPT=1"} {
		if !slices.Contains(childEnv, want) {
			t.Errorf("child env lacks %s", want)
		}
	}
	for _, kv := range childEnv {
		if strings.HasPrefix(kv, "SHELTER_TEST_SECRET=") || strings.HasPrefix(kv, "NOT_EXPORTED=") {
			t.Errorf("child env has %s", kv)
		}
	}
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func TestExecutableStatusAndStreams(t *testing.T) {
	s := session(t, []kernel.Tool{execTool(t, "probe", "", helperPath, helperArg, "echo")}, kernel.SessionOptions{})
	res := run(t, s, "probe --exit 3 --say oops")
	if res.ExitCode != 3 || res.Stderr != "oops\n" || res.Data != nil {
		t.Errorf("got code %d stderr %q data %s", res.ExitCode, res.Stderr, res.Data)
	}
	// --json and stdin hand the input over as given, compacted.
	for _, script := range []string{`probe --json '{"unit": "x", "exit": 0}'`, `probe <<< '{"unit": "x", "exit": 0}'`} {
		res = run(t, s, script)
		var got report
		if json.Unmarshal([]byte(res.Stdout), &got) != nil || got.Stdin != `{"unit":"x","exit":0}`+"\n" {
			t.Errorf("%s: stdout %q", script, res.Stdout)
		}
	}
	// A refused call starts nothing.
	res = run(t, s, `a=--unit; probe $a x --lines 1.9`)
	if res.ExitCode != 2 || res.Stdout != "" || res.Stderr != "probe: invalid --lines '1.9'; allowed: an integer (base 10)\n" {
		t.Errorf("refused: got code %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestExecutableOutputSchema(t *testing.T) {
	const out = `{"type":"object","required":["stdin","dir"]}`
	s := session(t, []kernel.Tool{
		execTool(t, "probe", out, helperPath, helperArg, "echo"),
		execTool(t, "text", out, helperPath, helperArg, "text"),
		execTool(t, "number", out, helperPath, helperArg, "number"),
	}, kernel.SessionOptions{})
	res := run(t, s, "probe --unit x")
	if res.ExitCode != 0 || string(res.Data) != strings.TrimSpace(res.Stdout) || !json.Valid(res.Data) {
		t.Errorf("probe: code %d data %s stdout %q", res.ExitCode, res.Data, res.Stdout)
	}
	// A failing exit is the call's; its stdout is not read as data.
	res = run(t, s, "probe --exit 4")
	if res.ExitCode != 4 || res.Data != nil {
		t.Errorf("exit 4: code %d data %s", res.ExitCode, res.Data)
	}
	res = run(t, s, "text")
	if res.ExitCode != 1 || res.Stdout != "not json\n" || res.Stderr != "text: output is not one JSON value, as its output schema requires\n" || res.Data != nil {
		t.Errorf("text: code %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(t, s, "number")
	if res.ExitCode != 1 || res.Stderr != "number: output: got number, want object\n" || res.Data != nil {
		t.Errorf("number: code %d stderr %q", res.ExitCode, res.Stderr)
	}
}

func TestExecutableLookup(t *testing.T) {
	bin := t.TempDir()
	if err := os.Symlink(helperPath, filepath.Join(bin, "probe-bin")); err != nil {
		t.Fatal(err)
	}
	// A bare name is looked up once, in shelter's own PATH, when the tool
	// is made; the session's PATH is never searched.
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	onpath := execTool(t, "onpath", "", "probe-bin", helperArg, "echo")
	t.Setenv("PATH", t.TempDir())
	s := session(t, []kernel.Tool{
		onpath,
		execTool(t, "notexec", "", "/dev/null"),
		execTool(t, "gone", "", "/no/such/tool"),
	}, kernel.SessionOptions{Env: map[string]string{"PATH": t.TempDir()}})
	if res := run(t, s, "onpath --unit x"); res.ExitCode != 0 || !strings.Contains(res.Stdout, `"stdin":"{\"unit\":\"x\"}\n"`) {
		t.Errorf("onpath: code %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if res := run(t, s, "notexec"); res.ExitCode != 126 || res.Stderr != "notexec: /dev/null: Permission denied\n" {
		t.Errorf("notexec: code %d stderr %q", res.ExitCode, res.Stderr)
	}
	if res := run(t, s, "gone"); res.ExitCode != 127 || res.Stderr != "gone: /no/such/tool: No such file or directory\n" {
		t.Errorf("gone: code %d stderr %q", res.ExitCode, res.Stderr)
	}
	_, err := harness.Exec(harness.Def{Name: "missing"}, []string{"no-such-program-here"})
	if want := "harness: tool missing: run: program 'no-such-program-here' not found in PATH"; err == nil || err.Error() != want {
		t.Errorf("missing: got %v, want %s", err, want)
	}
	if _, err := harness.Exec(harness.Def{Name: "x"}, nil); err == nil {
		t.Error("Exec with no argv succeeded")
	}
}
