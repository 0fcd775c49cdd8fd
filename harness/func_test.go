package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
)

// logsDef is the spec's example tool.
func logsDef() harness.Def {
	return harness.Def{
		Name:        "logs",
		Description: "Read a unit's journal.",
		Input:       json.RawMessage(logsSchema),
		Replaces:    []string{"journalctl", "systemctl status"},
		Annotations: harness.Annotations{ReadOnly: true},
	}
}

// echoFunc returns a Go-function tool that answers with what it was
// handed, and counts its calls.
func echoFunc(t testing.TB, def harness.Def, calls *atomic.Int32) kernel.Tool {
	t.Helper()
	tool, err := harness.Func(def, func(ctx context.Context, in harness.Input) (any, error) {
		if calls != nil {
			calls.Add(1)
		}
		return map[string]any{"args": in.Args, "dir": in.Dir, "caller": in.Caller}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestFuncRunsWithValidatedInputAndCaller(t *testing.T) {
	var calls atomic.Int32
	caller := kernel.Caller{SessionID: "s-1", Agent: "planner", Workspace: "ws"}
	s := session(t, []kernel.Tool{echoFunc(t, logsDef(), &calls)}, kernel.SessionOptions{Caller: caller})
	res := run(t, s, "logs --unit nginx --lines 50 --tags a,b --follow")
	want := `{"args":{"follow":true,"lines":50,"tags":["a","b"],"unit":"nginx"},"caller":{"session_id":"s-1","agent":"planner","workspace":"ws"},"dir":"` + s.Dir() + `"}`
	if res.ExitCode != 0 || res.Stdout != want+"\n" || string(res.Data) != want {
		t.Fatalf("got code %d stdout %q data %s stderr %q", res.ExitCode, res.Stdout, res.Data, res.Stderr)
	}
	// The caller comes from the session, never from the input: a
	// "caller" key is refused, not merged.
	res = run(t, s, `x='{"unit":"x","caller":{"session_id":"forged"}}'; logs --json "$x"`)
	if res.ExitCode != 2 || res.Stderr != "logs: unknown property 'caller'; allowed: follow, lines, tags, unit\n" {
		t.Errorf("forged caller: got code %d stderr %q", res.ExitCode, res.Stderr)
	}
	if calls.Load() != 1 {
		t.Errorf("the handler ran %d times, want 1", calls.Load())
	}
}

// TestRefusalsRunNothing checks each refusal through a session, both
// before the script runs (literal words) and at execution (words from a
// variable): exit 2, one line, the tool does not run.
func TestRefusalsRunNothing(t *testing.T) {
	var calls atomic.Int32
	s := session(t, []kernel.Tool{echoFunc(t, logsDef(), &calls)}, kernel.SessionOptions{})
	tests := []struct {
		args string
		line string
	}{
		{"--unti nginx", "logs: unknown flag '--unti'; allowed: --follow, --json, --lines, --tags, --unit"},
		{"nginx", "logs: unexpected argument 'nginx'; allowed: --follow, --json, --lines, --tags, --unit"},
		{"--unit x --follow=yes", "logs: invalid --follow 'yes'; allowed: a boolean (write --follow, --follow=true or --follow=false)"},
		{"--unit x --lines=1.9", "logs: invalid --lines '1.9'; allowed: an integer (base 10)"},
		{"--lines 5", "logs: missing required property 'unit'; allowed: input with unit"},
		{"--unit", "logs: flag '--unit' needs a value; allowed: --unit STRING"},
		{`--json {"unit":5}`, "logs: property 'unit': got number, want string; allowed: (none)"},
		{`--json {"unit":"x","tags":["a",1]}`, "logs: property '/tags/1': got number, want string; allowed: (none)"},
	}
	for _, tt := range tests {
		// Literal words: refused by the static pass, nothing runs.
		res := run(t, s, "touch marker; logs "+shellQuoteWords(tt.args))
		if res.ExitCode != 2 || !res.Rejected || len(res.Issues) != 1 || res.Issues[0].Message != tt.line || res.Stderr != tt.line+"\n" {
			t.Errorf("static %q: got code %d rejected %v issues %+v stderr %q", tt.args, res.ExitCode, res.Rejected, res.Issues, res.Stderr)
		}
		// Words known only at execution: refused by the tool itself.
		res = run(t, s, "set -- "+shellQuoteWords(tt.args)+`; logs "$@"`)
		if res.ExitCode != 2 || res.Stderr != tt.line+"\n" || res.Stdout != "" {
			t.Errorf("execution %q: got code %d stdout %q stderr %q", tt.args, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the tool ran %d times", n)
	}
	if res := run(t, s, "ls marker 2>/dev/null || echo none"); res.Stdout != "none\n" {
		t.Errorf("a refused script ran: %q", res.Stdout)
	}
}

// shellQuoteWords single-quotes each space-separated word.
func shellQuoteWords(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		out = append(out, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
	}
	return strings.Join(out, " ")
}

func TestJSONOnStdin(t *testing.T) {
	s := session(t, []kernel.Tool{echoFunc(t, logsDef(), nil)}, kernel.SessionOptions{})
	const want = `{"unit":"x"}`
	for _, script := range []string{
		`logs <<< '{"unit": "x"}'`,
		`printf '%s' '{"unit":"x"}' > in.json; logs < in.json`,
	} {
		res := run(t, s, script)
		var out struct{ Args json.RawMessage }
		if res.ExitCode != 0 || json.Unmarshal(res.Data, &out) != nil || string(out.Args) != want {
			t.Errorf("%s: got code %d data %s stderr %q", script, res.ExitCode, res.Data, res.Stderr)
		}
	}
	res, err := s.Run(context.Background(), "logs", kernel.RunOptions{Stdin: strings.NewReader(`{"unit":"y"}`)})
	var out struct{ Args json.RawMessage }
	if err != nil || res.ExitCode != 0 || json.Unmarshal(res.Data, &out) != nil || string(out.Args) != `{"unit":"y"}` {
		t.Errorf("RunOptions.Stdin: got %+v %v", res, err)
	}
	res = run(t, s, `logs <<< '{"unti":"x"}'`)
	if res.ExitCode != 2 || res.Stderr != "logs: unknown property 'unti'; allowed: follow, lines, tags, unit\n" {
		t.Errorf("unknown key on stdin: got code %d stderr %q", res.ExitCode, res.Stderr)
	}
	res = run(t, s, `logs`)
	if res.ExitCode != 2 || res.Stderr != "logs: missing required property 'unit'; allowed: input with unit\n" {
		t.Errorf("no input: got code %d stderr %q", res.ExitCode, res.Stderr)
	}
}

// TestTerminalIsNotReadForJSON: a person who types the bare name at a
// terminal gets the schema's refusal rather than a wait for JSON.
func TestTerminalIsNotReadForJSON(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	s := session(t, []kernel.Tool{echoFunc(t, logsDef(), nil)}, kernel.SessionOptions{})
	res, err := s.Run(context.Background(), "logs", kernel.RunOptions{Stdin: tty, Timeout: 10 * time.Second})
	if err != nil || res.ExitCode != 2 || res.Stderr != "logs: missing required property 'unit'; allowed: input with unit\n" {
		t.Errorf("got %+v %v", res, err)
	}
}

// TestJSONOnStdinPipeline is the spec's own example, a pipeline.
func TestJSONOnStdinPipeline(t *testing.T) {
	s := session(t, []kernel.Tool{echoFunc(t, logsDef(), nil)}, kernel.SessionOptions{})
	res := run(t, s, `echo '{"unit":"x"}' | logs`)
	var out struct{ Args json.RawMessage }
	if res.ExitCode != 0 || json.Unmarshal(res.Data, &out) != nil || string(out.Args) != `{"unit":"x"}` {
		t.Errorf("got code %d data %s stderr %q", res.ExitCode, res.Data, res.Stderr)
	}
}

func TestFuncResults(t *testing.T) {
	mk := func(name string, output string, h harness.Handler) kernel.Tool {
		tool, err := harness.Func(harness.Def{Name: name, Output: json.RawMessage(output)}, h)
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
	tools := []kernel.Tool{
		mk("nothing", "", func(context.Context, harness.Input) (any, error) { return nil, nil }),
		mk("nilptr", "", func(context.Context, harness.Input) (any, error) { return (*struct{})(nil), nil }),
		mk("html", "", func(context.Context, harness.Input) (any, error) { return "<a&b>", nil }),
		mk("raw", "", func(context.Context, harness.Input) (any, error) { return json.RawMessage(`{ "a" : [1, 2] }`), nil }),
		mk("refuse", "", func(context.Context, harness.Input) (any, error) {
			return nil, &kernel.Refusal{Command: "refuse", What: "not today"}
		}),
		mk("status", "", func(context.Context, harness.Input) (any, error) { return nil, kernel.ExitStatus(3) }),
		mk("boom", "", func(context.Context, harness.Input) (any, error) { return nil, errors.New("it broke") }),
		mk("panics", "", func(context.Context, harness.Input) (any, error) { panic("oh no") }),
		mk("typed", `{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`,
			func(context.Context, harness.Input) (any, error) { return map[string]any{"count": 2}, nil }),
		mk("badout", `{"type":"object","properties":{"count":{"type":"integer"}}}`,
			func(context.Context, harness.Input) (any, error) { return map[string]any{"count": "two"}, nil }),
		mk("printer", "", func(_ context.Context, in harness.Input) (any, error) {
			in.Stdout.Write([]byte("hello\n"))
			in.Stderr.Write([]byte("note\n"))
			return nil, nil
		}),
	}
	s := session(t, tools, kernel.SessionOptions{})
	tests := []struct {
		script, stdout, stderr, data string
		code                         int
	}{
		{"nothing", "", "", "", 0},
		{"nilptr", "", "", "", 0},
		{"html", "\"<a&b>\"\n", "", `"<a&b>"`, 0},
		{"raw", "{\"a\":[1,2]}\n", "", `{"a":[1,2]}`, 0},
		{"refuse", "", "refuse: not today; allowed: (none)\n", "", 2},
		{"status", "", "", "", 3},
		{"boom", "", "boom: it broke\n", "", 1},
		{"panics", "", "panics: panic: oh no\n", "", 1},
		{"typed", "{\"count\":2}\n", "", `{"count":2}`, 0},
		{"badout", "", "badout: output: property 'count': got string, want integer\n", "", 1},
		{"printer", "hello\n", "note\n", "", 0},
		{"nothing --x", "", "nothing: unknown flag '--x'; allowed: --json\n", "", 2},
	}
	for _, tt := range tests {
		res := run(t, s, `n=`+tt.script+`; $n`)
		if strings.Contains(tt.script, " ") {
			res = run(t, s, `set -- `+tt.script+`; "$@"`)
		}
		if res.ExitCode != tt.code || res.Stdout != tt.stdout || res.Stderr != tt.stderr || string(res.Data) != tt.data {
			t.Errorf("%s: got code %d stdout %q stderr %q data %s", tt.script, res.ExitCode, res.Stdout, res.Stderr, res.Data)
		}
	}
}

func TestFuncConstructionErrors(t *testing.T) {
	ok := func(context.Context, harness.Input) (any, error) { return nil, nil }
	tests := []struct {
		def  harness.Def
		h    harness.Handler
		want string
	}{
		{harness.Def{Name: "Logs"}, ok, `harness: tool name "Logs" must match [a-z][a-z0-9_-]{0,47}`},
		{harness.Def{Name: ""}, ok, `harness: tool name "" must match [a-z][a-z0-9_-]{0,47}`},
		{harness.Def{Name: strings.Repeat("a", 49)}, ok, `harness: tool name "` + strings.Repeat("a", 49) + `" must match [a-z][a-z0-9_-]{0,47}`},
		{harness.Def{Name: "x"}, nil, "harness: tool x: nil handler"},
		{harness.Def{Name: "x", Input: json.RawMessage(`{"type":"strin"}`)}, ok, "harness: tool x: input schema: at '/type': type: unknown type 'strin'; allowed: array, boolean, integer, null, number, object, string"},
		{harness.Def{Name: "x", Input: json.RawMessage(`{"type":"string"}`)}, ok, `harness: tool x: input schema must describe an object (type: object), not "string"`},
		{harness.Def{Name: "x", Input: json.RawMessage(`[1]`)}, ok, "harness: tool x: input schema must be a JSON object"},
		{harness.Def{Name: "x", Input: json.RawMessage(`{`)}, ok, "harness: tool x: input schema is not JSON: unexpected EOF"},
		{harness.Def{Name: "x", Input: json.RawMessage(`{"$ref":"/etc/passwd"}`)}, ok, "harness: tool x: input schema: at '/$ref': $ref '/etc/passwd' points outside the schema; a schema may only refer inside itself ('#/$defs/…')"},
		{harness.Def{Name: "x", Input: json.RawMessage(`{"properties":{"a":{"pattern":"(?=x)"}}}`)}, ok, "harness: tool x: input schema: at '/properties/a/pattern': pattern: '(?=x)' is not a Go (RE2) regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"},
		{harness.Def{Name: "x", Output: json.RawMessage(`{"minimum":"a"}`)}, ok, "harness: tool x: output schema: at '/minimum': minimum: must be a number, not string"},
		{harness.Def{Name: "x", Replaces: []string{" "}}, ok, "harness: tool x: an empty replaces entry"},
	}
	for _, tt := range tests {
		_, err := harness.Func(tt.def, tt.h)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Func(%+v) = %v, want %s", tt.def, err, tt.want)
		}
	}
	for _, name := range []string{"a", "logs", "a-b_c9", "z" + strings.Repeat("9", 47)} {
		if _, err := harness.Func(harness.Def{Name: name}, ok); err != nil {
			t.Errorf("Func(%q): %v", name, err)
		}
	}
}

func TestToolDescribesItself(t *testing.T) {
	tool := echoFunc(t, logsDef(), nil)
	if tool.Kind() != kernel.Harness || tool.Name() != "logs" {
		t.Errorf("kind %s name %s", tool.Kind(), tool.Name())
	}
	const desc = "Read a unit's journal. Use instead of: journalctl, systemctl status."
	if tool.Description() != desc {
		t.Errorf("Description() = %q", tool.Description())
	}
	if string(tool.InputSchema()) != logsSchema {
		t.Errorf("InputSchema() is not the schema as declared: %s", tool.InputSchema())
	}
	if r, ok := tool.(kernel.Replacer); !ok || strings.Join(r.Replaces(), "|") != "journalctl|systemctl status" {
		t.Errorf("Replaces: %v", tool)
	}
	if h, ok := tool.(*harness.Tool); !ok || !h.Annotations().ReadOnly || h.OutputSchema() != nil {
		t.Errorf("annotations or output: %#v", tool)
	}
	info := kernel.Describe([]kernel.Tool{tool})
	if info[0].Kind != "harness" || info[0].Description != desc || string(info[0].InputSchema) != logsSchema {
		t.Errorf("Describe: %+v", info[0])
	}
	noRepl, _ := harness.Func(harness.Def{Name: "plain", Description: " Just this. "}, func(context.Context, harness.Input) (any, error) { return nil, nil })
	if noRepl.Description() != "Just this." {
		t.Errorf("Description() without replaces = %q", noRepl.Description())
	}
}

const logsHelp = `usage: logs --unit STRING [--follow] [--lines INTEGER] [--tags STRING,…]
       logs --json '{…}'
       echo '{…}' | logs

Read a unit's journal. Use instead of: journalctl, systemctl status.

flags:
  --unit STRING    The unit to read. (required)
  --follow         (alone means true; --follow=false)
  --lines INTEGER
  --tags STRING,…  (repeatable or comma-separated)
  --json '{…}'     the whole input as one JSON object
  --help           print this help
`

func TestHelp(t *testing.T) {
	var calls atomic.Int32
	s := session(t, []kernel.Tool{echoFunc(t, logsDef(), &calls)}, kernel.SessionOptions{})
	for _, script := range []string{"logs --help", "logs --unit x --help", "help logs"} {
		res := run(t, s, script)
		if res.ExitCode != 0 || res.Stdout != logsHelp {
			t.Errorf("%s: got code %d stdout:\n%s\nwant:\n%s", script, res.ExitCode, res.Stdout, logsHelp)
		}
	}
	if calls.Load() != 0 {
		t.Error("--help ran the tool")
	}
}

// TestLaunchedByXargs: xargs adds words at execution, so the static pass
// does not refuse `xargs logs --unit`; the tool judges the whole call.
func TestLaunchedByXargs(t *testing.T) {
	var calls atomic.Int32
	s := session(t, []kernel.Tool{echoFunc(t, logsDef(), &calls)}, kernel.SessionOptions{})
	res := run(t, s, "echo nginx | xargs logs --unit")
	var out struct{ Args json.RawMessage }
	if res.ExitCode != 0 || res.Rejected || json.Unmarshal(res.Data, &out) != nil || string(out.Args) != `{"unit":"nginx"}` {
		t.Errorf("xargs logs --unit: got code %d rejected %v data %s stderr %q", res.ExitCode, res.Rejected, res.Data, res.Stderr)
	}
	// What xargs adds is still checked: a refusal at execution, and
	// xargs's own status for a command that failed.
	res = run(t, s, "echo 1.9 | xargs logs --unit x --lines")
	if res.ExitCode != 123 || res.Rejected || res.Stderr != "logs: invalid --lines '1.9'; allowed: an integer (base 10)\n" {
		t.Errorf("xargs logs --lines 1.9: got code %d rejected %v stderr %q", res.ExitCode, res.Rejected, res.Stderr)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the tool ran %d times, want 1", n)
	}
}

const richHelp = `usage: logs [--any VALUE] [--filters JSON] [--follow] [--level STRING] [--limit VALUE] [--lines INTEGER] [--list VALUE,…] [--max-lines INTEGER] [--meta JSON] [--ports INTEGER,…] [--ratio NUMBER] [--ref INTEGER] [--tags STRING,…] [--unit STRING]
       logs --json '{…}'
       echo '{…}' | logs

flags:
  --any VALUE
  --filters JSON       (repeatable: one JSON item or a JSON array each)
  --follow             (alone means true; --follow=false)
  --level STRING       one of: "info", "warn"
  --limit VALUE
  --lines INTEGER
  --list VALUE,…       (repeatable, comma-separated or a JSON array)
  --max-lines INTEGER
  --meta JSON
  --ports INTEGER,…    (repeatable or comma-separated)
  --ratio NUMBER
  --ref INTEGER
  --tags STRING,…      (repeatable or comma-separated)
  --unit STRING
  --json '{…}'         the whole input as one JSON object
  --help               print this help
`

// TestHelpOfEveryShape: the help says how each kind of property is
// written, as the mapping reads it.
func TestHelpOfEveryShape(t *testing.T) {
	tool, err := harness.Func(harness.Def{Name: "logs", Input: json.RawMessage(richSchema)},
		func(context.Context, harness.Input) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := tool.(*harness.Tool).Help(); got != richHelp {
		t.Errorf("Help():\n%s\nwant:\n%s", got, richHelp)
	}
}
