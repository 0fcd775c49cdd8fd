package kernel

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// blockingEcho is a tool that replaces the shell's echo and waits for
// its call's end.
type blockingEcho struct{ blockTool }

func (blockingEcho) Name() string                 { return "echo" }
func (blockingEcho) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }

func TestWaitsFor(t *testing.T) {
	for _, tc := range []struct {
		script string
		waits  bool
	}{
		{`echo hi`, false},
		{`x=1; export Y="$x"; cd /; pwd; printf '%s\n' "${x:-none}" "$((x + 1))"`, false},
		{`if [[ $x == a* ]]; then echo yes; else declare -a arr=(a "b c"); fi; test -n "$x" && true || false`, false},
		{`case $x in a*) echo a;; *) echo other;; esac; let y=1; (( y++ )); set -- a b; shift; unset y; exit 3`, false},
		{`ls`, true},
		{`read line`, true},
		{`sleep 1`, true},
		{`wait`, true},
		{`"echo" hi`, true}, // not a literal name
		{`echo $(date)`, true},
		{`x=$(date)`, true},
		{`echo <(date)`, true},
		{`echo hi > out`, true},
		{`echo hi | cat`, true},
		{`echo hi &`, true},
		{`echo *`, true},
		{`arr=(*.go)`, true},
		{`echo {1..9}`, true},
		{`echo ~root`, true},
		{`while true; do :; done`, true},
		{`for x in a b; do echo $x; done`, true},
		{`f() { echo hi; }`, false},
		{`f() { echo "$1"; x=1; }; f a; f b`, false},
		{`function f { echo hi; }; f`, false},
		{`f() { sleep 1; }; f`, true},
		{`f() { echo hi; }; f *`, true},
		{`f() { f; }; f`, true},                   // it recurses
		{`f() { g; }; g() { echo hi; }; f`, true}, // a function calls another
		{`f() { echo hi; } > out; f`, true},       // a redirection
		{`f() (echo hi); f`, true},                // a subshell
		{`f() { echo hi; }; g`, true},             // not the script's
		{`echo() { read x; }; echo hi`, true},     // the body reads
		{`sleep 3; sleep() { :; }`, true},         // called before it is defined
		{`cat; cat() { :; }`, true},
		{`if false; then sleep() { :; }; fi; sleep 3`, true}, // it may not be defined
		{`g() { sleep() { :; }; }; sleep 3`, true},
		{`f() { :; }; unset -f f; f`, true}, // unset may take it away
		{`f() { :; }; unset f; f`, true},
		{`echo() { echo hi; }; echo`, true}, // it calls itself
		{`echo() { printf x; }; printf() { echo y; }; echo`, true},
		{`f() { echo a; }; if true; then f; fi; f`, false},
		{`(echo hi)`, true},
		{`time echo hi`, true},
		{`trap 'sleep 9' EXIT`, true},
		{`eval echo hi`, true},
		{`f`, true},
	} {
		s := launchSession(t, Config{})
		if got := s.waitsFor(parseScript(t, tc.script)); got != tc.waits {
			t.Errorf("waitsFor(%q) = %v, want %v", tc.script, got, tc.waits)
		}
	}
}

// What the session holds may make a builtin's name wait: a function, an
// alias, a tool of that name, or an ERR trap that a failing command runs.
func TestWaitsForTheSessions(t *testing.T) {
	for _, tc := range []struct {
		setup, script string
		cfg           Config
	}{
		{`printf() { sleep 9; }`, `printf x`, Config{}},
		// The session's f may run before the script's replaces it.
		{`f() { sleep 9; }`, `f; f() { echo hi; }; f`, Config{}},
		{``, `echo() { printf hi; }; echo`, Config{Tools: []Tool{blockingEcho{}}}},
		{`shopt -s expand_aliases; alias pwd='sleep 9'`, `pwd`, Config{}},
		{`trap 'sleep 9' ERR`, `false`, Config{}},
		{``, `echo hi`, Config{Tools: []Tool{blockingEcho{}}}},
	} {
		s := launchSession(t, tc.cfg)
		if res, _ := s.Run(context.Background(), tc.setup, RunOptions{}); res.ExitCode != 0 {
			t.Fatalf("%s: %+v", tc.setup, res)
		}
		if !s.waitsFor(parseScript(t, tc.script)) {
			t.Errorf("after %q, waitsFor(%q) = false, want true", tc.setup, tc.script)
		}
	}
}

// A call that cannot wait runs to its end whatever its yield point, as a
// call without one.
func TestRunYieldNothingToWaitFor(t *testing.T) {
	s := launchSession(t, Config{})
	ctx := context.Background()
	res, _ := s.Run(ctx, `x=kept; cd /; printf '%s\n' "$x"`, RunOptions{Yield: time.Nanosecond})
	if res.Yielded || res.ExitCode != 0 || res.Stdout != "kept\n" {
		t.Fatalf("quick call: %+v", res)
	}
	res, _ = s.Run(ctx, `printf '%s\n' "$x" "$PWD"`, RunOptions{})
	if res.Stdout != "kept\n/\n" {
		t.Fatalf("after the quick call: %q", res.Stdout)
	}
}

func parseScript(t *testing.T, src string) *syntax.File {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A function the session holds is quick to call when its body is and it
// calls, defines and unsets nothing.
func TestWaitsForSessionFunctions(t *testing.T) {
	for _, tc := range []struct {
		setup, script string
		waits         bool
	}{
		{`f() { echo hi; x=1; }`, `f`, false},
		{`f() { echo hi; }`, `g() { f; }; g`, false}, // f is a leaf
		{`f() { sleep 1; }`, `f`, true},
		{`f() { g; }; g() { echo hi; }`, `f`, true}, // it calls a function
		{`f() { f; }`, `f`, true},
		{`f() { unset -f g; }; g() { :; }`, `f; g`, true},
		{`f() { h() { :; }; }`, `f`, true},                  // it defines one
		{`f() { echo hi; }`, `f() { echo bye; }; f`, false}, // the script's replaced it
		{`f() { sleep 1; }`, `f() { echo bye; }; f`, false},
		{`f() { echo hi; }`, `unset -f f; f`, true},
		{`f() { echo hi; }; shopt -s expand_aliases; alias f='sleep 9'`, `f`, true},
		{`echo() { printf x; }`, `echo hi`, true},
	} {
		s := launchSession(t, Config{})
		if res, _ := s.Run(context.Background(), tc.setup, RunOptions{}); res.ExitCode != 0 {
			t.Fatalf("%s: %+v", tc.setup, res)
		}
		if got := s.waitsFor(parseScript(t, tc.script)); got != tc.waits {
			t.Errorf("after %q, waitsFor(%q) = %v, want %v", tc.setup, tc.script, got, tc.waits)
		}
	}
}

// BeforeWait is called before a call that may wait, and not before one
// that cannot; a live output makes a call that cannot wait keep its
// yield point, not call BeforeWait.
func TestRunBeforeWait(t *testing.T) {
	s := launchSession(t, Config{})
	ctx := context.Background()
	for _, tc := range []struct {
		script string
		calls  int
	}{
		{"echo hi", 0},
		{"f() { echo hi; }; f", 0},
		{"f", 0}, // the session's f, now
		{"g() { sleep 0; }; g", 1},
		{"g", 1},
		{"while false; do :; done", 1},
		{"sleep 0", 1},
	} {
		calls := 0
		var out strings.Builder
		res, _ := s.Run(ctx, tc.script, RunOptions{Stdout: &out, BeforeWait: func() { calls++ }})
		if res.ExitCode != 0 || calls != tc.calls {
			t.Errorf("%q: exit %d, BeforeWait called %d times, want %d", tc.script, res.ExitCode, calls, tc.calls)
		}
	}
}
