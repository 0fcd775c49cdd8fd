package kernel

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

func launchSession(t *testing.T, cfg Config) *Session {
	t.Helper()
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Under a terminal, the shell's own test and a child
// both see one; without it, neither does.
func TestCallTTY(t *testing.T) {
	s := launchSession(t, Config{})
	for _, withTTY := range []bool{false, true} {
		var out lockedWriter
		var stdout io.Writer = &out
		var tty *callTTY
		if withTTY {
			var err error
			if tty, err = openCallTTY(&pty.Winsize{Rows: 24, Cols: 80}, &out); err != nil {
				t.Fatal(err)
			}
			stdout = tty.File
		}
		r, err := s.newRunner(expand.ListEnviron("PATH="+os.Getenv("PATH")), s.Dir())
		if err != nil {
			t.Fatal(err)
		}
		interp.StdIO(s.devnull, stdout, stdout)(r)
		file, err := syntax.NewParser().Parse(strings.NewReader("test -t 1 && echo tty; sh -c 'test -t 1 && echo child && stty size <&1'"), "")
		if err != nil {
			t.Fatal(err)
		}
		r.Run(context.Background(), file)
		want := ""
		if tty != nil {
			tty.Close(time.Second)
			want = "tty\r\nchild\r\n24 80\r\n"
		}
		if got := out.String(); got != want {
			t.Errorf("tty %v: printed %q, want %q", withTTY, got, want)
		}
	}
}

type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
