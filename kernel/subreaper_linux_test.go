package kernel_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// escapes are scripts whose background work leaves the call's process
// group or its shell: %s is a sleep's length, each run's own marker.
// shelter's own setsid keeps its command in the call; setsid(1), run by
// a program, does not.
var escapes = []string{
	"f() { sleep %s & }; f",
	"( sleep %s & )",
	"{ sleep %s & }",
	"sh -c 'setsid -f sleep %s' &",
	"sh -c 'setsid -f sleep %s'",
	"sh -c 'setsid sleep %s & sleep 107.3'",
}

// TestEscapesEndWithTheirCall runs in a child process, as the subreaper
// is the whole process's: the rest of the package's tests run without.
func TestEscapesEndWithTheirCall(t *testing.T) {
	t.Parallel()
	if os.Getenv("SHELTER_SUBREAPER_CHILD") == "1" {
		escapesChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEscapesEndWithTheirCall$", "-test.v")
	cmd.Env = append(os.Environ(), "SHELTER_SUBREAPER_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func escapesChild(t *testing.T) {
	k, err := kernel.New(withLaunchers(kernel.Config{Subreaper: true, KillGrace: 300 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	session := func() *kernel.Session {
		s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for i, script := range escapes {
		// The end of the call: under a timeout, for the one that waits.
		// The call waits until the escapee runs.
		marker := fmt.Sprintf("83.%03d1", i)
		s := session()
		started := "\nuntil grep -qs '" + strings.ReplaceAll(marker, ".", `\.`) + "' /proc/[0-9]*/cmdline; do sleep 0.01; done"
		res := runWith(t, s, strings.ReplaceAll(script, "%s", marker)+started, kernel.RunOptions{Timeout: 2 * time.Second})
		if want := exitOf(script); res.ExitCode != want {
			t.Errorf("%s: exit %d, want %d; stderr %q", script, res.ExitCode, want, res.Stderr)
		}
		noneLeft(t, "sleep "+marker)
		if res := run(t, s, "echo ok"); res.Stdout != "ok\n" {
			t.Errorf("%s: the next call: %+v", script, res)
		}
		s.Close()

		// Close: the same as a job of the session, still running when
		// Close is called.
		marker = fmt.Sprintf("83.%03d2", i)
		s = session()
		res = run(t, s, "{ "+strings.ReplaceAll(script, "%s", marker)+"\n sleep 107.3; } &")
		if res.ExitCode != 0 || len(res.Jobs) != 1 {
			t.Errorf("%s as a job: %+v", script, res)
		}
		eventually(t, script+" started", func() bool { return len(liveWith("sleep "+marker)) > 0 })
		start := time.Now()
		s.Close()
		if left := liveWith("sleep " + marker); len(left) > 0 {
			t.Errorf("%s: Close returned after %s and left %q", script, time.Since(start), left)
		}
		noneLeft(t, "sleep 107.3")
	}
}

func exitOf(script string) int {
	if strings.Contains(script, "sleep 107.3") {
		return 124
	}
	return 0
}

// A process that answers SIGTERM by stopping to wait is killed after the
// grace, under a timeout and by Close.
func TestTimeoutEndsAProcessThatOutlastsSIGTERM(t *testing.T) {
	t.Parallel()
	const script = "timeout -s CONT -k 1d 0 sleep 1009.3"
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	start := time.Now()
	res := runWith(t, s, script, kernel.RunOptions{Timeout: 2 * time.Second})
	if res.ExitCode != 124 || !res.TimedOut {
		t.Errorf("exit %d, stderr %q; want 124", res.ExitCode, res.Stderr)
	}
	d := time.Since(start)
	if d > slow {
		t.Errorf("returned after %s", d)
	}
	t.Logf("under a 2s timeout, returned after %s", d)
	noneLeft(t, "sleep 1009.3")

	s = newSession(t, kernel.Config{}, kernel.SessionOptions{})
	if res := run(t, s, script+" &"); len(res.Jobs) != 1 {
		t.Fatalf("the job: %+v", res)
	}
	eventually(t, "the job started", func() bool { return len(liveWith("sleep 1009.3")) > 0 })
	start = time.Now()
	s.Close()
	if left := liveWith("sleep 1009.3"); len(left) > 0 {
		t.Errorf("Close returned after %s and left %q", time.Since(start), left)
	}
	t.Logf("Close returned after %s", time.Since(start))
}
