package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a client of a real `shelter serve` learns from the tool list and
// the results, on stdio and over HTTP: a yielded call reads as running,
// not as a status; the bash tool says how its state lasts and when a
// call yields; declared annotations arrive as declared.

var contractFlags = []string{"--profile", "agent", "--tools", "../../examples/tools.yaml", "--tools", "../../examples/harness.yaml"}

func connectServeStdio(t *testing.T, dir string, args ...string) *sdk.ClientSession {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"serve", "--cwd", dir}, args...)...)
	cmd.Args[0] = "shelter"
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listTools(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	tools := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	return tools
}

func resultText(res *sdk.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	tc, _ := res.Content[0].(*sdk.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}

func structuredJSON(res *sdk.CallToolResult) string {
	b, _ := json.Marshal(res.StructuredContent)
	return string(b)
}

// checkAnnotations: the hints of examples/tools.yaml and harness.yaml
// as declared, the cautious ones where nothing is declared.
func checkAnnotations(t *testing.T, tools map[string]*sdk.Tool) {
	t.Helper()
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	want := map[string]hints{
		"git_log":    {readOnly: true},
		"git_status": {readOnly: true},
		"git_diff":   {readOnly: true},
		"git_show":   {readOnly: true},
		"go_version": {readOnly: true},
		"go_env":     {readOnly: true},
		"go_vet":     {readOnly: true},
		"git_add":    {destructive: true, openWorld: true},
		"go_build":   {destructive: true, openWorld: true},
		"logs":       {readOnly: true},
		"restart":    {destructive: true, idempotent: true},
		"bash":       {destructive: true, openWorld: true},
	}
	for name, w := range want {
		tool := tools[name]
		if tool == nil || tool.Annotations == nil {
			t.Errorf("%s: no tool or no annotations: %+v", name, tool)
			continue
		}
		a := tool.Annotations
		if a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: destructiveHint and openWorldHint not set explicitly: %+v", name, a)
			continue
		}
		got := hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
		if got != w {
			t.Errorf("%s: annotations %+v, want %+v", name, got, w)
		}
	}
}

// checkYielded: a call that yields has no exit code anywhere, reads as
// running, and names the job to collect.
func checkYielded(t *testing.T, res *sdk.CallToolResult) {
	t.Helper()
	text := resultText(res)
	if res.IsError || strings.Contains(text, "exit code") || !strings.HasPrefix(text, "started\nstill running as job %1; collect with wait %1 (its output goes on in ") {
		t.Fatalf("yielded call: isError %v, text %q", res.IsError, text)
	}
	if s := structuredJSON(res); !strings.Contains(s, `"exit_code":null`) || !strings.Contains(s, `"yielded":true`) {
		t.Fatalf("yielded call's structured content %s", s)
	}
}

// blocked prints started, then runs until the file release exists, and
// exits 7: it is still running at any yield point before the test
// creates release.
const blocked = "echo started; until [ -e release ]; do sleep 0.01; done; exit 7"

func TestServeStdioContract(t *testing.T) {
	dir := t.TempDir()
	cs := connectServeStdio(t, dir, contractFlags...)
	tools := listTools(t, cs)
	desc := tools["bash"].Description
	for _, want := range []string{
		"A call without the session argument runs in the server's one default session.",
		"A call still running after yield_ms (default 45s; 0 never) returns what it printed so far and goes on as a background job of its session: that result has no exit code, it says `still running as job %N`; collect it with `wait %N` (which gives its exit code) in the same session.",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("bash's description lacks %q:\n%s", want, desc)
		}
	}
	checkAnnotations(t, tools)

	res, _ := callBash(t, cs, map[string]any{"command": blocked, "yield_ms": 100})
	checkYielded(t, res)
	if strings.Contains(resultText(res), "session:") {
		t.Errorf("on stdio the text names a session: %q", resultText(res))
	}
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, r := callBash(t, cs, map[string]any{"command": "wait %1; echo status $?"})
	if res.IsError || r.Stdout != "status 7\n" {
		t.Fatalf("wait %%1: %+v", r)
	}
}

func TestServeHTTPContract(t *testing.T) {
	dir := t.TempDir()
	url, _ := startServeHTTP(t, dir, contractFlags...)
	cs := connectServeHTTP(t, url)
	tools := listTools(t, cs)
	desc := tools["bash"].Description
	for _, want := range []string{
		"A call without the session argument runs in a new, empty shell: a `cd` or a variable set there is gone in the next call. To go on in a shell, pass the session handle its result names.",
		"A call still running after yield_ms (default 45s; 0 never)",
		"collect it with `wait %N` (which gives its exit code) in the same session.",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("bash's description lacks %q:\n%s", want, desc)
		}
	}
	checkAnnotations(t, tools)

	// Without a session every call is a new shell; the text says which
	// handle goes on.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, first := callBash(t, cs, map[string]any{"command": "cd sub"})
	if res.IsError || first.Session == "" || !strings.HasSuffix(resultText(res), "exit code: 0\nsession: "+first.Session+" (pass it as session to go on in this shell)") {
		t.Fatalf("cd sub: %q", resultText(res))
	}
	if _, r := callBash(t, cs, map[string]any{"command": "pwd"}); r.Stdout != dir+"\n" || r.Session == first.Session {
		t.Fatalf("pwd without a session: %+v, want %s in a new session", r, dir)
	}
	if _, r := callBash(t, cs, map[string]any{"command": "pwd", "session": first.Session}); r.Stdout != filepath.Join(dir, "sub")+"\n" {
		t.Fatalf("pwd in the first session: %+v", r)
	}

	// A yielded call, then collecting it in its session.
	res, r := callBash(t, cs, map[string]any{"command": blocked, "yield_ms": 100, "session": first.Session})
	checkYielded(t, res)
	if !strings.HasSuffix(resultText(res), ")\nsession: "+first.Session+" (pass it as session to go on in this shell)") {
		t.Fatalf("yielded call's text %q", resultText(res))
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, r = callBash(t, cs, map[string]any{"command": "wait %1; echo status $?", "session": first.Session})
	if res.IsError || r.Stdout != "status 7\n" {
		t.Fatalf("wait %%1: %+v", r)
	}

	// A closed handle is refused, and not named again as usable.
	closed, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "session_close", Arguments: map[string]any{"session": first.Session}})
	if err != nil || closed.IsError || strings.Contains(resultText(closed), "session:") {
		t.Fatalf("session_close: %v %q", err, resultText(closed))
	}
	res, r = callBash(t, cs, map[string]any{"command": "pwd", "session": first.Session})
	if !res.IsError || r.Session != "" || strings.Contains(resultText(res), "\nsession:") || !strings.Contains(r.Stderr, "unknown session '"+first.Session+"'") {
		t.Fatalf("a call with the closed handle: %q %+v", resultText(res), r)
	}
}
