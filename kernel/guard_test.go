package kernel

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replacer is a minimal harness-like tool with a replaces list.
type replacer struct {
	name, desc string
	replaces   []string
}

func (r *replacer) Name() string                     { return r.name }
func (r *replacer) Kind() Kind                       { return Harness }
func (r *replacer) Description() string              { return r.desc }
func (r *replacer) InputSchema() json.RawMessage     { return json.RawMessage(`{"type":"object"}`) }
func (r *replacer) Run(context.Context, *Call) error { return nil }
func (r *replacer) Replaces() []string               { return r.replaces }

// TestGuardInSessions runs scripts: static refusals run nothing, dynamic
// ones are refused at execution, and only the session's tools count.
func TestGuardInSessions(t *testing.T) {
	bin := t.TempDir()
	ran := filepath.Join(t.TempDir(), "ran")
	fake := "#!/bin/sh\necho \"$0 $*\" >> \"$RAN\"\n"
	for _, name := range []string{"journalctl", "systemctl"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logs := &replacer{name: "logs", desc: "Read a unit's journal.", replaces: []string{"journalctl"}}
	k, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	open := func(tools ...Tool) (*Session, string) {
		dir := t.TempDir()
		s, err := k.NewSession(SessionOptions{Dir: dir, Tools: tools, Env: map[string]string{
			"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"),
			"RAN":  ran,
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, dir
	}
	ctx := context.Background()

	with, dir := open(logs)
	res, err := with.Run(ctx, "touch marker; journalctl -u nginx", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const line = "shelter: 'journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — nothing ran"
	if res.ExitCode != 2 || !res.Rejected || len(res.Issues) != 1 || res.Issues[0].Message != line || res.Issues[0].Code != CodeGuard || res.Stderr != line+"\n" {
		t.Errorf("static: got %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); !os.IsNotExist(err) {
		t.Errorf("static refusal: marker exists (%v)", err)
	}

	res, _ = with.Run(ctx, "c=journalctl; $c -u x", RunOptions{})
	const dynamic = "shelter: 'journalctl -u x' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — it did not run\n"
	if res.ExitCode != 2 || res.Rejected || res.Stderr != dynamic {
		t.Errorf("dynamic: got code %d rejected %v stderr %q", res.ExitCode, res.Rejected, res.Stderr)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Fatalf("a refused journalctl ran (%v)", err)
	}

	// A session without the tool refuses nothing.
	without, _ := open()
	res, _ = without.Run(ctx, "journalctl -u nginx", RunOptions{})
	if res.ExitCode != 0 || res.Stderr != "" {
		t.Errorf("without the tool: got code %d stderr %q", res.ExitCode, res.Stderr)
	}
	if b, err := os.ReadFile(ran); err != nil || !strings.HasSuffix(string(b), "journalctl -u nginx\n") {
		t.Errorf("without the tool, journalctl did not run: %q %v", b, err)
	}
}

// TestGuardFollowsNamerefsAndBraces: a variable entry judges the
// variable an assignment sets, through a nameref (declared by the script
// or held by the session) and through a declaration's brace expansion.
func TestGuardFollowsNamerefsAndBraces(t *testing.T) {
	k, err := New(Config{Tools: []Tool{&replacer{name: "fetch", desc: "Fetch a URL.", replaces: []string{"HOSTALIASES"}}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tests := []struct {
		script  string
		refused bool
	}{
		{"declare -n ref=HOSTALIASES; ref=/tmp/h", true},
		{"declare -n ref=HOSTALIASES", false}, // sets the nameref, not its target
		{"declare -n r1=HOSTALIASES; declare -n r2=r1; r2=x", true},
		{"f() { local -n out=HOSTALIASES; out=x; }", true},
		{"typeset -gn ref=HOSTALIASES; export ref=x", true},
		{"declare -n ref=HOSTALIASES; read ref", true},
		{"declare -n ref=HOSTALIASES; printf -v ref %s x", true},
		{"declare -n ref=HOSTALIASES; for ref in a b; do :; done", true},
		{"declare -n ref=HOME; ref=x", false},
		{"declare -n ref=$name; ref=x", false}, // the target is known at execution only
		{"declare -n ref=HOSTALIASES; declare ref=x", true},
		{"declare {HOSTALIASES,X}=x", true},
		{"export {X,HOSTALIASES}=x", true},
		{"export {X,HOSTALIASES}", true},
		{"readonly HOST{ALIASES,NAME}=x", true},
		{"declare {A,B}=x", false},
		{"export {A,B}{C,D}", false},
		{"declare -n ref=HOSTALIASES; export {ref,X}=1", true},
		{"{HOSTALIASES,X}=x", false}, // no assignment in bash: a command name
	}
	for _, tt := range tests {
		issues, err := s.Check(tt.script)
		if err != nil {
			t.Fatal(err)
		}
		refused := false
		for _, is := range issues {
			if is.Code == CodeGuard && strings.Contains(is.Message, "the tool 'fetch'") {
				refused = true
			}
		}
		if refused != tt.refused {
			t.Errorf("%s: refused %v, want %v (issues %+v)", tt.script, refused, tt.refused, issues)
		}
	}

	// A nameref the session holds from an earlier call.
	if res, err := s.Run(context.Background(), "declare -n held=HOSTALIASES", RunOptions{}); err != nil || res.ExitCode != 0 {
		t.Fatalf("declaring the nameref: %+v %v", res, err)
	}
	res, err := s.Run(context.Background(), "touch marker; held=x", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Rejected || !strings.Contains(res.Stderr, "'held=x' is done with the tool 'fetch' here") {
		t.Errorf("held nameref: %+v", res)
	}
}
