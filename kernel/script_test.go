package kernel_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// A call is a script: these are the behaviours of bash's that a call
// keeps although its state persists (docs/embedding.md, "Bash
// compatibility").

func TestExitTrapRunsAtTheEndOfItsCall(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	steps := []struct{ script, stdout string }{
		{"trap 'echo bye' EXIT; echo hi", "hi\nbye\n"},
		{"echo next", "next\n"}, // the trap ran in its own call only
		{"trap 'echo never' EXIT; trap - EXIT; echo cleared", "cleared\n"},
		{"trap 'echo on exit' EXIT; exit 3", "on exit\n"},
		{"echo $?", "3\n"},
	}
	for _, st := range steps {
		res := run(t, s, st.script)
		if res.Stdout != st.stdout {
			t.Errorf("%q: stdout %q, want %q (exit %d, stderr %q)", st.script, res.Stdout, st.stdout, res.ExitCode, res.Stderr)
		}
	}
}

func TestExitTrapRunsAfterATimeout(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := runWith(t, s, "trap 'echo cleaned up' EXIT; sleep 30", kernel.RunOptions{Timeout: 300 * time.Millisecond})
	if res.ExitCode != 124 || res.Stdout != "cleaned up\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 124 and the trap's line", res.ExitCode, res.Stdout, res.Stderr)
	}
	if res := run(t, s, "echo after"); res.Stdout != "after\n" {
		t.Errorf("next call: %+v", res)
	}
}

func TestDollarZero(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	if res := run(t, s, "echo $0"); res.Stdout != "shelter\n" {
		t.Errorf("default $0: %q", res.Stdout)
	}
	res := runWith(t, s, `echo "$0 $1"`, kernel.RunOptions{Name: "/some/script.sh", Args: []string{"a"}})
	if res.Stdout != "/some/script.sh a\n" {
		t.Errorf("named $0: %q", res.Stdout)
	}
}

func TestBashSourceIsTheCallsFile(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := runWith(t, s, `echo "${BASH_SOURCE[0]} ${#BASH_SOURCE[@]}"`, kernel.RunOptions{Source: "../proj/tool.sh"})
	if res.Stdout != "../proj/tool.sh 1\n" {
		t.Errorf("with a Source: %q", res.Stdout)
	}
	if res := run(t, s, `echo "[${BASH_SOURCE[0]}]"`); res.Stdout != "[]\n" {
		t.Errorf("the next call, read from no file: %q", res.Stdout)
	}
	res = runWith(t, s, `BASH_SOURCE=mine; echo "$BASH_SOURCE"`, kernel.RunOptions{Source: "f.sh"})
	if res.Stdout != "mine\n" {
		t.Errorf("set by the script: %q", res.Stdout)
	}
}

func TestBangIsTheJobsPID(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	cases := []struct{ script, stdout string }{
		{"{ sleep 0.1; exit 7; } & wait $!; echo $?", "7\n"},
		{"sleep 5 & kill $!; wait $!; echo $?", "143\n"},
		{"sleep 5 & kill -0 $! && [ \"$(jobs -p)\" = $! ] && echo real; kill $!; wait", "real\n"},
		{"f() { sleep 5 & kill $!; wait $!; echo $?; }; f", "143\n"}, // mvdan's own background: $! is g1
		{"set -e; false & wait $!; echo not reached", ""},
		{"x=1 & wait $!; echo $?", "0\n"}, // a job that runs no program
	}
	for _, c := range cases {
		if res := run(t, s, c.script); res.Stdout != c.stdout {
			t.Errorf("%q: stdout %q, want %q (exit %d, stderr %q)", c.script, res.Stdout, c.stdout, res.ExitCode, res.Stderr)
		}
	}
}

func TestProcessSubstitutionWritesToTheCall(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	if res := run(t, s, "echo hi > >(cat); wait"); res.Stdout != "hi\n" {
		t.Errorf("stdout %q, stderr %q", res.Stdout, res.Stderr)
	}
}

func TestCatShortcutReadsTheWholePath(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	script := `mkdir -p sub; printf 'one\ntwo\n\n' > sub/f; d=sub f=f; x=$(< "$d/$f"); echo "[$x]"; y=$(<sub/f); echo "[$y]"; z=$(< nosuch); echo "status $?"`
	res := run(t, s, script)
	if want := "[one\ntwo]\n[one\ntwo]\nstatus 1\n"; res.Stdout != want {
		t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, want, res.Stderr)
	}
}

// Every `&` is the session's: one nested in a function, subshell or group
// ends with its call, and Close waits for it to be gone.
func TestNestedBackgroundEndsWithItsCall(t *testing.T) {
	for i, script := range []string{
		"f() { sleep %s & }; f",
		"( sleep %s & )",
		"{ sleep %s & }",
	} {
		marker := "83.00" + string(rune('1'+i)) + "7"
		s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
		res := run(t, s, strings.ReplaceAll(script, "%s", marker))
		if res.ExitCode != 0 {
			t.Fatalf("%s: %+v", script, res)
		}
		eventually(t, script+" leaves no process", func() bool { return len(liveWith("sleep "+marker)) == 0 })
		s.Close()
	}
}

func TestInProcessReadsHonourTheDeadline(t *testing.T) {
	scripts := []string{
		"read x < fifo",
		"x=$(< fifo)",
		"x=$(</dev/zero)",
		"read -r x < /dev/zero",
	}
	for _, script := range scripts {
		t.Run(script, func(t *testing.T) {
			t.Parallel()
			// A FIFO of its own: shelter unblocks its own open of a FIFO
			// by opening the other end, which would unblock another's too.
			dir := t.TempDir()
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
				t.Fatal(err)
			}
			readsHonourTheDeadline(t, script, dir)
		})
	}
}

func readsHonourTheDeadline(t *testing.T, script, dir string) {
	s := newSession(t, kernel.Config{MemoryLimit: -1}, kernel.SessionOptions{Dir: dir})
	start := time.Now()
	res := runWith(t, s, script, kernel.RunOptions{Timeout: 2 * time.Second})
	if res.ExitCode != 124 || !res.TimedOut {
		t.Errorf("%q: exit %d, stderr %q; want 124", script, res.ExitCode, res.Stderr)
	}
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("%q: returned after %s", script, d)
	}
	if res := run(t, s, "echo ok"); res.Stdout != "ok\n" {
		t.Errorf("%q: next call: %+v", script, res)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err := s.Run(ctx, script, kernel.RunOptions{})
	if err != nil || res.ExitCode != 130 || !res.Cancelled {
		t.Errorf("%q cancelled: exit %d, err %v, stderr %q; want 130", script, res.ExitCode, err, res.Stderr)
	}
	if res := run(t, s, "echo ok"); res.Stdout != "ok\n" {
		t.Errorf("%q: call after cancel: %+v", script, res)
	}
}

func TestConfigIsCopied(t *testing.T) {
	cfg := kernel.Config{
		CoreEnv:       []string{"PATH"},
		Env:           map[string]string{"A": "1"},
		AllowExternal: []string{"cat"},
		Externals:     kernel.ExternalsDenied,
	}
	k, err := kernel.New(withLaunchers(cfg))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Env["A"] = "changed"
	cfg.Env["B"] = "new"
	cfg.CoreEnv[0] = "HOME"
	cfg.AllowExternal[0] = "ls"
	got := k.Config()
	got.Env["A"] = "changed too"
	got.AllowExternal[0] = "rm"

	s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := run(t, s, `echo "$A${B-unset}"; [ -n "$PATH" ] && echo path; cat /dev/null && echo cat; ls 2>/dev/null || echo no ls`)
	if want := "1unset\npath\ncat\nno ls\n"; res.Stdout != want {
		t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, want, res.Stderr)
	}
	if c := k.Config(); c.Env["A"] != "1" || c.AllowExternal[0] != "cat" || c.CoreEnv[0] != "PATH" {
		t.Errorf("Config() changed: %+v", c)
	}
}

// panicTool panics in the call's own goroutine.
type panicTool struct{ greetTool }

func (panicTool) Name() string { return "boom" }
func (panicTool) Run(context.Context, *kernel.Call) error {
	panic("boom")
}

func TestPanicBecomesAResult(t *testing.T) {
	s := newSession(t, kernel.Config{Tools: []kernel.Tool{panicTool{}}}, kernel.SessionOptions{})
	res := run(t, s, "echo before; boom; echo after")
	if res.ExitCode != 2 || res.Stdout != "before\n" || len(res.Issues) != 1 || res.Issues[0].Code != kernel.CodeInternal {
		t.Errorf("%+v", res)
	}
	if res := run(t, s, "echo alive"); res.Stdout != "alive\n" {
		t.Errorf("next call: %+v", res)
	}
}

func TestLargeScriptIsRefused(t *testing.T) {
	s := newSession(t, kernel.Config{MemoryLimit: 1 << 20}, kernel.SessionOptions{})
	script := "cat <<EOF\n" + strings.Repeat("x", 300<<10) + "\nEOF\n"
	res := run(t, s, script)
	want := "shelter: the script is 300 KiB; the memory limit of 1 MiB allows scripts up to 256 KiB: put large data in a file and read it from there\n"
	if res.ExitCode != 2 || !res.Rejected || res.Stderr != want {
		t.Errorf("exit %d, stderr %q, want %q", res.ExitCode, res.Stderr, want)
	}
}

// TestVariablesOverBudgetAreUnset: a call the variables' budget ended
// leaves the session without the variables that outgrew it, whatever the
// timing of the next call's commands, and with the call's status in $?.
func TestVariablesOverBudgetAreUnset(t *testing.T) {
	s := newSession(t, kernel.Config{MemoryLimit: 1 << 20}, kernel.SessionOptions{})
	run(t, s, "small=kept")
	res := run(t, s, "big=a; while :; do big=$big$big; done")
	want := "; write large data to a file instead; shelter unset big\n"
	if res.ExitCode != 1 || !strings.HasPrefix(res.Stderr, "shelter: memory limit of 1 MiB exceeded by the shell's variables (") || !strings.HasSuffix(res.Stderr, want) {
		t.Fatalf("exit %d, stderr %q; want 1 and the memory line ending %q", res.ExitCode, res.Stderr, want)
	}
	// The next call outlives the budget's first measure of the variables.
	res = run(t, s, "echo $? ${#big} $small; sleep 0.01; echo still")
	if res.ExitCode != 0 || res.Stdout != "1 0 kept\nstill\n" {
		t.Errorf("the call after: %+v", res)
	}
}

// TestVariablesShedRunsNoneOfTheScript: shelter's unset of the
// variables that outgrew the budget is the builtin's, whatever function
// the script named unset, and sets $? without running the ERR trap.
func TestVariablesShedRunsNoneOfTheScript(t *testing.T) {
	s := newSession(t, kernel.Config{MemoryLimit: 1 << 20}, kernel.SessionOptions{})
	marker := filepath.Join(t.TempDir(), "marker")
	run(t, s, `unset() { echo unset "$@" >> `+marker+`; }; trap '[ ${#big} = 0 ] && echo trap >> `+marker+`' ERR`)
	res := run(t, s, "big=a; while :; do big=$big$big; done")
	if res.ExitCode != 1 || !strings.HasSuffix(res.Stderr, "; shelter unset big\n") {
		t.Fatalf("exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("the script's code ran during the unset: %q", b)
	}
	if res := run(t, s, "echo $? ${#big}"); res.Stdout != "1 0\n" {
		t.Errorf("the call after: %+v", res)
	}
}

// TestDeepCallsEndTheCall, with the memory budget and without it (a
// negative limit): the depth's bound is the stack's, not memory's.
func TestDeepCallsEndTheCall(t *testing.T) {
	for _, limit := range []int64{0, -1} {
		s := newSession(t, kernel.Config{MemoryLimit: limit}, kernel.SessionOptions{})
		for _, script := range []string{
			`f() { f; }; f`,
			`e='eval "$e"'; eval "$e"`,
		} {
			res := run(t, s, script)
			if res.ExitCode != 2 || !strings.Contains(res.Stderr, "calls nested too deep") {
				t.Errorf("limit %d, %q: exit %d, stderr %q", limit, script, res.ExitCode, res.Stderr)
			}
			if res := run(t, s, "echo alive"); res.Stdout != "alive\n" {
				t.Errorf("limit %d, %q: next call: %+v", limit, script, res)
			}
		}
	}
}
