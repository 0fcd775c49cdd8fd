package spawn_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/spawn"
)

func enableSubreaper(t *testing.T) {
	t.Helper()
	if err := spawn.EnableSubreaper(); err != nil {
		t.Skipf("no child subreaper: %v", err)
	}
}

// running lists the live processes whose argv is cmdline.
func running(t *testing.T, cmdline string) []proc {
	var out []proc
	for _, p := range procs(t) {
		if p.cmdline == cmdline {
			out = append(out, p)
		}
	}
	return out
}

// waitRunning polls until a live process has argv cmdline.
func waitRunning(t *testing.T, cmdline string) proc {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ps := running(t, cmdline); len(ps) > 0 {
			return ps[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q never ran", cmdline)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A process that escaped the call's group by setsid is ended when the
// call's window closes, however it escaped.
func TestWindowEndsEscapees(t *testing.T) {
	enableSubreaper(t)
	tests := []struct {
		name, script string
		cancel       bool
		// racy: Run's sweep of the group may end the escapee before it
		// calls setsid, which ends it too.
		racy bool
	}{
		// setsid forks when it leads its group, as Run's child does.
		{"setsid", "exec setsid sleep 300.101 >/dev/null", false, true},
		{"setsid -f", `setsid -f sh -c 'echo >ready; exec sleep 300.102 >/dev/null'; until [ -s ready ]; do sleep 0.01; done`, false, false},
		// The call's timeout ends sh; the escapee outlives it.
		{"timeout", `setsid sh -c 'echo >ready; exec sleep 300.103 >/dev/null' & until [ -s ready ]; do sleep 0.01; done; echo escaped; sleep 100`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := tt.script[strings.Index(tt.script, "sleep 300"):][:len("sleep 300.101")]
			t.Cleanup(func() { killMatching(t, withArgs(marker)) })
			w := spawn.OpenWindow()
			defer w.Close() // a window left open holds back every later one
			w.Grace = 200 * time.Millisecond
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := shCmd(t, tt.script)
			out := newNotifyWriter("escaped")
			c.Stdout, c.Grace = out, 100*time.Millisecond
			if tt.cancel {
				go func() {
					out.wait(t)
					cancel()
				}()
			}
			status, err := spawn.Run(ctx, c)
			if tt.cancel != (err != nil) {
				t.Fatalf("Run = %d, %v", status, err)
			}
			if !tt.racy {
				waitRunning(t, marker)
			}
			w.Close()
			if left := running(t, marker); len(left) > 0 {
				t.Fatalf("after Close, still running: %+v", left)
			}
		})
	}
}

// An orphan that exits by itself is reaped: no zombie is left.
func TestSubreaperReapsOrphans(t *testing.T) {
	enableSubreaper(t)
	c := shCmd(t, `setsid -f sh -c 'echo $$ >pid.tmp; mv pid.tmp pid'`)
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Fatalf("Run = %d, %v", status, err)
	}
	pidFile := filepath.Join(c.Dir, "pid")
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(pidFile)
		if err == nil {
			stat := filepath.Join("/proc", string(bytes.TrimSpace(b)), "stat")
			_, err := os.Stat(stat)
			if os.IsNotExist(err) {
				return
			}
		}
		if time.Now().After(deadline) {
			st, _ := os.ReadFile(filepath.Join("/proc", string(bytes.TrimSpace(b)), "stat"))
			t.Fatalf("orphan (pid file %q) never reaped: %s", b, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ticksNow is the time since boot in clock ticks, from /proc/uptime.
func ticksNow(t *testing.T) uint64 {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Fatal(err)
	}
	secs, _, _ := strings.Cut(string(b), " ")
	whole, frac, _ := strings.Cut(secs, ".")
	w, _ := strconv.ParseUint(whole, 10, 64)
	f, _ := strconv.ParseUint((frac + "00")[:2], 10, 64)
	return w*100 + f
}

func startTicks(t *testing.T, pid int) uint64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// waitTickAfter polls until the clock is past the tick a process started
// in, so that a window opened now is later than it.
func waitTickAfter(t *testing.T, started uint64) {
	deadline := time.Now().Add(10 * time.Second)
	for ticksNow(t) <= started+1 {
		if time.Now().After(deadline) {
			t.Fatal("the clock does not move")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func escape(t *testing.T, marker string) proc {
	t.Helper()
	// The child waits until the escapee has a session of its own, out of
	// reach of Run's sweep of the group.
	c := shCmd(t, "setsid -f sh -c 'echo >ready; exec "+marker+" >/dev/null'; until [ -s ready ]; do sleep 0.01; done")
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Fatalf("Run = %d, %v", status, err)
	}
	return waitRunning(t, marker)
}

// An orphan is ended only once no window that could have started it is
// open; one older than every window (a daemon) only by EndOrphans.
func TestWindowAttribution(t *testing.T) {
	enableSubreaper(t)
	const daemon, late = "sleep 300.201", "sleep 300.202"
	t.Cleanup(func() { killMatching(t, withArgs(daemon)); killMatching(t, withArgs(late)) })

	d := escape(t, daemon)
	waitTickAfter(t, startTicks(t, d.pid))
	older := spawn.OpenWindow()
	defer older.Close()
	newer := spawn.OpenWindow()
	defer newer.Close()
	escape(t, late)
	newer.Close()
	if len(running(t, late)) == 0 {
		t.Fatal("closing the newer window ended what the older one may have started")
	}
	older.Close()
	if left := running(t, late); len(left) > 0 {
		t.Fatalf("closing the last window left %+v", left)
	}
	if len(running(t, daemon)) == 0 {
		t.Fatal("closing a window ended a process older than it")
	}
	spawn.EndOrphans(100 * time.Millisecond)
	if left := running(t, daemon); len(left) > 0 {
		t.Fatalf("EndOrphans left %+v", left)
	}
}
