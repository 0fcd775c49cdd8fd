package kernel_test

import (
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// trap as bash has it: conditions by name, number or SIG name, listings
// in bash's order and quoting, a trap's scope (docs/embedding.md, "Bash
// compatibility").

// callStep is one call of a session and what it prints and returns.
type callStep struct {
	script, stdout string
	exit           int
}

func runSteps(t *testing.T, steps []callStep) {
	t.Helper()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	for _, st := range steps {
		res := run(t, s, st.script)
		if res.Stdout != st.stdout || res.ExitCode != st.exit {
			t.Errorf("%q: exit %d stdout %q, want %d %q (stderr %q)", st.script, res.ExitCode, res.Stdout, st.exit, st.stdout, res.Stderr)
		}
	}
}

func TestTrapListsAsBash(t *testing.T) {
	runSteps(t, []callStep{
		{`trap 'echo a' int 15; trap "echo \"it's\"" EXIT; trap`, "trap -- 'echo \"it'\\''s\"' EXIT\ntrap -- 'echo a' SIGINT\ntrap -- 'echo a' SIGTERM\nit's\n", 0},
		// A signal's trap stays for the next call; EXIT's ran and went.
		{"trap -p", "trap -- 'echo a' SIGINT\ntrap -- 'echo a' SIGTERM\n", 0},
		{"trap -p TERM 2", "trap -- 'echo a' SIGTERM\ntrap -- 'echo a' SIGINT\n", 0},
		{"trap - SIGINT; trap TERM; trap -p", "", 0},
		{"trap 'echo rt' RTMIN+1 SIGRTMAX-2; trap -p; trap - 35 62", "trap -- 'echo rt' SIGRTMIN+1\ntrap -- 'echo rt' SIGRTMAX-2\n", 0},
		{"trap -p NOPE; echo $?", "1\n", 0},
		{"trap -l | head -1", " 1) SIGHUP\t 2) SIGINT\t 3) SIGQUIT\t 4) SIGILL\t 5) SIGTRAP\n", 0},
		{"trap -x; echo $?", "2\n", 0},
	})
}

func TestTrapConditions(t *testing.T) {
	runSteps(t, []callStep{
		{"trap 'echo zero' 0; echo main", "main\nzero\n", 0},
		{"trap 'echo sig' SIGEXIT; echo main", "main\nsig\n", 0},
		// A bad condition fails the command, not the good ones beside it.
		{"trap 'echo x' NOPE HUP; echo $?; trap -p HUP", "1\ntrap -- 'echo x' SIGHUP\n", 0},
		{"trap 'echo r' RETURN; echo $?", "2\n", 0},
		{"trap 'echo err' ERR; false; echo after; trap - ERR; false; echo quiet", "err\nafter\nquiet\n", 0},
	})
}

func TestTrapScope(t *testing.T) {
	runSteps(t, []callStep{
		// A subshell's trap stays in it; a function's is the shell's.
		{"(trap 'echo x' HUP); trap -p HUP", "", 0},
		{"f() { trap 'echo bye' EXIT; }; f; echo main", "main\nbye\n", 0},
		// The trap sees the call's status, which stays the call's.
		{`trap 'echo "st=$?"' EXIT; (exit 4)`, "st=4\n", 4},
		{"echo $?", "4\n", 0},
		{"trap 'echo in trap' EXIT; set -e; false; echo no", "in trap\n", 1},
	})
}

func TestTrapRefusalLine(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := run(t, s, "trap 'echo r' RETURN")
	want := "trap: 'RETURN' is a condition shelter never traps; allowed: ERR, EXIT, a signal's name\n"
	if res.ExitCode != 2 || res.Stderr != want {
		t.Errorf("exit %d stderr %q, want 2 %q", res.ExitCode, res.Stderr, want)
	}
	if res := run(t, s, "trap 'echo x' NOPE"); !strings.Contains(res.Stderr, "trap: NOPE: invalid signal specification") {
		t.Errorf("stderr %q", res.Stderr)
	}
}
