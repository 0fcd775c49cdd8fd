package kernel_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// memoryScripts grow shelter's own memory without end; each must end with
// status 1 and the memory line, never with the process.
var memoryScripts = []struct{ script, stderr string }{
	{`x=$(yes | head -c 1500000000); echo ${#x}`, memoryLine},
	{`x=$(</dev/zero); echo ${#x}`, memoryLine},
	{`x=a; while :; do x=$x$x; done`, memoryLine},
	{`x=$(while :; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done)`, memoryLine},
	// xargs(1) refuses an item no command line can hold, before holding it.
	{`head -c 300000000 /dev/zero | tr '\0' a | xargs echo`, "xargs: argument line too long\n"},
}

const memoryLine = "shelter: memory limit of 16 MiB exceeded by "

// TestMemoryBudget runs the memory scripts in a child test process whose
// address space is limited to 4 GiB, as a host might be: a script that
// escaped the budget would kill it with "fatal error: out of memory".
func TestMemoryBudget(t *testing.T) {
	t.Parallel()
	if os.Getenv("SHELTER_MEMORY_CHILD") == "1" {
		memoryChild(t)
		return
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit a 4 GiB address space")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryBudget$", "-test.v")
	cmd.Env = append(os.Environ(), "SHELTER_MEMORY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func memoryChild(t *testing.T) {
	limit := uint64(4 << 30)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := kernel.Preset(kernel.ProfileAgent)
	cfg.MemoryLimit = 16 << 20
	cfg.Timeout = time.Minute
	k, err := kernel.New(withLaunchers(cfg))
	if err != nil {
		t.Fatal(err)
	}
	other, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, m := range memoryScripts {
		script := m.script
		s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
		if err != nil {
			t.Fatal(err)
		}
		// Another session of the same process runs during the script.
		var wg sync.WaitGroup
		done := make(chan struct{})
		wg.Go(func() {
			for {
				res, err := other.Run(context.Background(), "echo ok", kernel.RunOptions{})
				if err != nil || res.Stdout != "ok\n" {
					t.Errorf("the other session: %+v, %v", res, err)
				}
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
		res, err := s.Run(context.Background(), script, kernel.RunOptions{})
		close(done)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 1 || !strings.HasPrefix(res.Stderr, m.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want 1 and the memory line", script, res.ExitCode, res.Stderr)
		}
		if _, err := res.MarshalJSON(); err != nil {
			t.Errorf("%q: JSON: %v", script, err)
		}
		if res, _ := s.Run(context.Background(), "echo still", kernel.RunOptions{}); res.Stdout != "still\n" {
			t.Errorf("%q: the session after: %+v", script, res)
		}
		s.Close()
	}
}
