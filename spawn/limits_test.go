//go:build linux

package spawn

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// testLimits are what the children below get: 64 open files (soft and
// hard) and 1 GiB of address space (soft; hard unlimited).
var testLimits = []Rlimit{
	{Resource: unix.RLIMIT_NOFILE, Cur: 64, Max: 64},
	{Resource: unix.RLIMIT_AS, Cur: 1 << 30, Max: unix.RLIM_INFINITY},
}

// limitsShown is what `ulimit -n; ulimit -Sv` prints under testLimits.
const limitsShown = "64\n1048576\n"

func limitsCmd(t testing.TB, script string, limits []Rlimit) (*Cmd, *strings.Builder) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	out := &strings.Builder{}
	return &Cmd{Path: sh, Args: []string{"sh", "-c", script}, Env: []string{"PATH=" + os.Getenv("PATH")}, Dir: "/", Stdout: out, Stderr: out, Limits: limits}, out
}

func runLimits(t testing.TB, script string, limits []Rlimit) (int, string) {
	t.Helper()
	c, out := limitsCmd(t, script, limits)
	status, err := Run(context.Background(), c)
	if err != nil {
		t.Fatalf("sh -c %q: status %d, err %v", script, status, err)
	}
	return status, out.String()
}

// The limits are there before the program's first instruction: not one
// run in 200 sees shelter's.
func TestLimitsBeforeFirstInstruction(t *testing.T) {
	for i := range 200 {
		if _, got := runLimits(t, "ulimit -n; ulimit -Sv", testLimits); got != limitsShown {
			t.Fatalf("run %d printed %q, want %q", i, got, limitsShown)
		}
	}
}

// With a umask too, the start is traced from the mask's starter thread.
func TestLimitsWithUmask(t *testing.T) {
	mask := fs.FileMode(0o027)
	for i := range 20 {
		c, out := limitsCmd(t, "umask; ulimit -n; ulimit -Sv", testLimits)
		c.Umask = &mask
		if status, err := Run(context.Background(), c); status != 0 || err != nil {
			t.Fatalf("status %d, err %v", status, err)
		}
		if got, want := out.String(), "0027\n"+limitsShown; got != want {
			t.Fatalf("run %d printed %q, want %q", i, got, want)
		}
	}
}

// What the child forks inherits them; the child is no longer traced.
func TestLimitsInherited(t *testing.T) {
	_, got := runLimits(t, `sh -c 'ulimit -n; ulimit -Sv; :'; grep TracerPid /proc/self/status; :`, testLimits)
	if want := limitsShown + "TracerPid:\t0\n"; got != want {
		t.Fatalf("printed %q, want %q", got, want)
	}
}

// Without Limits a child has shelter's limits, as os/exec gives them.
func TestNoLimitsUnchanged(t *testing.T) {
	const script = "ulimit -n; ulimit -Hn; ulimit -Sv; grep TracerPid /proc/self/status"
	want, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, got := runLimits(t, script, nil); got != string(want) {
		t.Fatalf("printed %q, want %q", got, want)
	}
}

// The traced start leaves os/exec's Wait (by pidfd) the child's own
// status: an exit code, a signal, a program that cannot start.
func TestLimitsStatus(t *testing.T) {
	for _, tc := range []struct {
		script string
		status int
	}{
		{"exit 7", 7},
		{"kill -9 $$", 137},
		{"exec /nonexistent", 127},
		{"true", 0},
	} {
		if status, _ := runLimits(t, tc.script, testLimits); status != tc.status {
			t.Errorf("sh -c %q: status %d, want %d", tc.script, status, tc.status)
		}
	}
	c, _ := limitsCmd(t, "", testLimits)
	c.Path = "/nonexistent"
	if status, err := Run(context.Background(), c); status != 127 || err == nil {
		t.Errorf("/nonexistent: status %d, err %v; want 127 and an error", status, err)
	}
}

// Starts with limits from many goroutines at once share the tracer
// thread.
func TestLimitsConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if _, got := runLimits(t, "ulimit -n; ulimit -Sv", testLimits); got != limitsShown {
					t.Errorf("printed %q, want %q", got, limitsShown)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Once ptrace was refused, a start sets the limits right after it and
// the command still runs.
func TestLimitsAfterPtraceRefused(t *testing.T) {
	ptraceRefused.Store(true)
	defer ptraceRefused.Store(false)
	if status, got := runLimits(t, "echo ran", testLimits); status != 0 || got != "ran\n" {
		t.Fatalf("status %d, printed %q", status, got)
	}
}

// A set-user-ID program is not started traced: it would lose its
// privilege.
func TestGainsPrivilege(t *testing.T) {
	sh, _ := exec.LookPath("sh")
	if gainsPrivilege(sh) {
		t.Errorf("gainsPrivilege(%s) = true", sh)
	}
	for _, p := range []string{"/usr/bin/su", "/bin/su", "/usr/bin/passwd", "/usr/bin/sudo"} {
		st, err := os.Stat(p)
		if err != nil || st.Mode()&fs.ModeSetuid == 0 {
			continue
		}
		if !gainsPrivilege(p) {
			t.Errorf("gainsPrivilege(%s) = false for a set-user-ID file", p)
		}
		return
	}
	t.Log("no set-user-ID program found")
}

// BenchmarkRunLimits is a start of sh -c true with and without Limits.
func BenchmarkRunLimits(b *testing.B) {
	for _, bc := range []struct {
		name   string
		limits []Rlimit
	}{{"none", nil}, {"limits", testLimits}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				c, _ := limitsCmd(b, "true", bc.limits)
				if status, err := Run(context.Background(), c); status != 0 || err != nil {
					b.Fatal(status, err)
				}
			}
		})
	}
}
