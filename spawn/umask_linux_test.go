package spawn_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"

	"github.com/shelter-sh/shelter/spawn"
)

// ownUmask is shelter's umask as /proc reports it for the process (the
// main thread's); syscall.Umask would change it to read it.
func ownUmask(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no Umask: line in /proc/self/status")
	return ""
}

func childUmask(t *testing.T, mask *fs.FileMode) string {
	t.Helper()
	c := shCmd(t, "umask")
	c.Umask = mask
	var out strings.Builder
	c.Stdout = &out
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Fatalf("sh -c umask: status %d, err %v", status, err)
	}
	return strings.TrimSpace(out.String())
}

func TestUmaskReachesChild(t *testing.T) {
	own := ownUmask(t)
	for _, m := range []fs.FileMode{0o077, 0o027, 0, 0o777, 0o077} {
		if got, want := childUmask(t, &m), fmt.Sprintf("%04o", m); got != want {
			t.Errorf("Umask %04o: child says %s, want %s", m, got, want)
		}
	}
	if got := childUmask(t, nil); got != own {
		t.Errorf("no Umask: child says %s, want shelter's %s", got, own)
	}
	if got := ownUmask(t); got != own {
		t.Errorf("shelter's umask is %s after the children, was %s", got, own)
	}
}

// Files the child creates have the mode its umask leaves, and children
// with other masks started at the same time keep theirs.
func TestUmaskConcurrentChildren(t *testing.T) {
	own := ownUmask(t)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			var mask *fs.FileMode
			want := own
			if i%4 != 0 {
				m := fs.FileMode([]int{0o077, 0o007, 0o002}[i%4-1])
				mask, want = &m, fmt.Sprintf("%04o", m)
			}
			c := shCmd(t, "umask; : > f; stat -c %a f")
			c.Umask = mask
			var out strings.Builder
			c.Stdout = &out
			if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
				t.Errorf("child %d: status %d, err %v", i, status, err)
				return
			}
			n, _ := strconv.ParseUint(want, 8, 32)
			wantOut := fmt.Sprintf("%s\n%o\n", want, 0o666&^n)
			if out.String() != wantOut {
				t.Errorf("child %d: printed %q, want %q", i, out.String(), wantOut)
			}
		})
	}
	wg.Wait()
	if got := ownUmask(t); got != own {
		t.Errorf("shelter's umask is %s after the children, was %s", got, own)
	}
}

// A child outlives the moment it was started: the starter thread stays,
// so its parent-death signal does not fire.
func TestUmaskChildSurvivesStart(t *testing.T) {
	m := fs.FileMode(0o077)
	c := shCmd(t, "sleep 0.3; umask")
	c.Umask = &m
	var out strings.Builder
	c.Stdout = &out
	status, err := spawn.Run(context.Background(), c)
	if status != 0 || err != nil || strings.TrimSpace(out.String()) != "0077" {
		t.Fatalf("status %d, err %v, printed %q; want 0, nil, 0077", status, err, out.String())
	}
}

func TestUmaskOnTerminal(t *testing.T) {
	m := fs.FileMode(0o077)
	c := shCmd(t, "umask")
	c.Umask = &m
	c.TTY = &pty.Winsize{Rows: 24, Cols: 80}
	var out strings.Builder
	c.Stdout = &out
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Fatalf("status %d, err %v", status, err)
	}
	if got := strings.TrimSpace(out.String()); got != "0077" {
		t.Errorf("child on a terminal says %q, want 0077", got)
	}
}
