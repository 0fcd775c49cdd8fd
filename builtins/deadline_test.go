package builtins

import (
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/internal/fifotest"
	"github.com/shelter-sh/shelter/kernel"
)

// deadlineSession is a sandbox session confined to root with the
// coreutils, as `shelter --profile sandbox --root ROOT` has.
func deadlineSession(t *testing.T, root string) *kernel.Session {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("FIFOs and pipes have deadlines on Linux only (docs/security.md)")
	}
	return sandboxSession(t, root, Coreutils(), nil)
}

// A deadlineEnd is a way a call ends early.
type deadlineEnd struct {
	name     string
	code     int
	timedOut bool // else cancelled
}

// deadlineEnds are the call's own deadline passing (RunOptions.Timeout:
// 124, timed_out), the caller's context's deadline passing and the
// caller cancelling once the command holds its end of the FIFO (both a
// cancel for the kernel, docs/embedding.md: 130, cancelled).
var deadlineEnds = []deadlineEnd{
	{"timeout", 124, true},
	{"context-deadline", 130, false},
	{"cancel", 130, false},
}

// start returns the context and options a call ending so runs with: a
// deadline 2 s away, or a cancel once ready is closed.
func (e deadlineEnd) start(t *testing.T, ready <-chan struct{}) (context.Context, kernel.RunOptions) {
	switch e.name {
	case "timeout":
		return context.Background(), kernel.RunOptions{Timeout: 2 * time.Second}
	case "context-deadline":
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		t.Cleanup(cancel)
		return ctx, kernel.RunOptions{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		select {
		case <-ready:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, kernel.RunOptions{}
}

func (e deadlineEnd) check(t *testing.T, res kernel.Result) {
	t.Helper()
	if res.ExitCode != e.code || res.TimedOut != e.timedOut || res.Cancelled == e.timedOut {
		t.Fatalf("exit %d timed_out %v cancelled %v, want %d (%s); stderr %q",
			res.ExitCode, res.TimedOut, res.Cancelled, e.code, e.name, res.Stderr)
	}
}

// checkUsable runs a call after the one that ended: the session answers.
func checkUsable(t *testing.T, s *kernel.Session) {
	t.Helper()
	res, err := s.Run(context.Background(), "echo ok", kernel.RunOptions{})
	if err != nil || res.ExitCode != 0 || res.Stdout != "ok\n" {
		t.Fatalf("the session after: %v, exit %d, stdout %q, stderr %q", err, res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestDeadlineEndsFIFORead is the table of docs/security.md's
// "Deadlines hold" through the Go API: every command blocked inside
// shelter's process on a FIFO whose other end stays open and silent for
// fifotest.WriterHolds ends with the call's deadline (124) or its
// caller's deadline or cancel (130), long before that end goes, and the
// session answers after.
func TestDeadlineEndsFIFORead(t *testing.T) {
	t.Parallel()
	for _, row := range fifotest.Rows {
		for _, end := range deadlineEnds {
			t.Run(row.Name+"/"+end.name, func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				s := deadlineSession(t, root)
				silent := fifotest.Hold(t, fifotest.Make(t, root), row.Writes)
				ctx, opts := end.start(t, silent.Opened())
				res, err := s.Run(ctx, row.Script, opts)
				if err != nil {
					t.Fatal(err)
				}
				if silent.Outlived() {
					t.Fatalf("the call returned only once the FIFO's other end went, after %s", fifotest.WriterHolds)
				}
				end.check(t, res)
				checkUsable(t, s)
			})
		}
	}
}

// TestDeadlineEndsStdinRead is the same for the call's own input: a pipe
// whose writer stays open and silent, read by cat.
func TestDeadlineEndsStdinRead(t *testing.T) {
	t.Parallel()
	for _, end := range deadlineEnds {
		t.Run(end.name, func(t *testing.T) {
			t.Parallel()
			s := deadlineSession(t, t.TempDir())
			in := fifotest.HoldPipe(t, false)
			// Cancelled once the script is under way, cat next.
			started := &firstWrite{done: make(chan struct{})}
			ctx, opts := end.start(t, started.done)
			opts.Stdin, opts.Stderr = in.End, started
			res, err := s.Run(ctx, "echo go >&2; cat", opts)
			if err != nil {
				t.Fatal(err)
			}
			if in.Outlived() {
				t.Fatalf("the call returned only once its stdin's writer went, after %s", fifotest.WriterHolds)
			}
			end.check(t, res)
			checkUsable(t, s)
		})
	}
}

// firstWrite closes done at its first write.
type firstWrite struct {
	once sync.Once
	done chan struct{}
}

func (f *firstWrite) Write(p []byte) (int, error) {
	f.once.Do(func() { close(f.done) })
	return len(p), nil
}

var _ io.Writer = (*firstWrite)(nil)

// TestDeadlineKeepsWhatWasRead checks that the deadline loses nothing:
// what the writer wrote before it fell silent is in the output of the
// call that timed out, and a writer that writes and goes is read to the
// end, by the same session, from the same FIFO.
func TestDeadlineKeepsWhatWasRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := deadlineSession(t, root)
	ff := fifotest.Make(t, root)

	// A writer that wrote, and is silent since: the FIFO opened for
	// reading and writing takes what it writes before any reader comes.
	held, err := os.OpenFile(ff, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var went atomic.Bool
	writerGoes := time.AfterFunc(fifotest.WriterHolds, func() { went.Store(true); held.Close() })
	if _, err := held.WriteString("before the deadline\n"); err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), "cat ff", kernel.RunOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	writerGoes.Stop()
	held.Close()
	if went.Load() {
		t.Fatalf("the call returned only once the FIFO's writer went, after %s", fifotest.WriterHolds)
	}
	deadlineEnds[0].check(t, res)
	if res.Stdout != "before the deadline\n" {
		t.Errorf("stdout %q, want what the writer wrote before the deadline", res.Stdout)
	}

	for _, tc := range []struct{ script, want string }{
		{"cat ff", "written\nand gone\n"},
		{`x=$(<ff); echo "$x"`, "written\nand gone\n"},
		{"sort ff", "and gone\nwritten\n"},
	} {
		go func() {
			// Opened once the call opens its end, it writes and goes.
			f, err := os.OpenFile(ff, os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			f.WriteString("written\nand gone\n")
			f.Close()
		}()
		res, err := s.Run(context.Background(), tc.script, kernel.RunOptions{Timeout: fifotest.WriterHolds})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 || res.Stdout != tc.want {
			t.Errorf("%s: exit %d, stdout %q, want 0 and %q; stderr %q", tc.script, res.ExitCode, res.Stdout, tc.want, res.Stderr)
		}
	}
}

// TestDeadlineEndsFIFOReadAfterAProgram checks a FIFO that a program got
// before a builtin reads or writes it, in one redirection: the program
// gets a file of its own, and the builtin's still ends with the call.
func TestDeadlineEndsFIFOReadAfterAProgram(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("FIFOs and pipes have deadlines on Linux only (docs/security.md)")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Parallel()
	for _, row := range []fifotest.Row{
		{Name: "read", Script: "{ sh -c :; cat; } < ff"},
		{Name: "write", Script: "{ sh -c :; seq 1 1000000; } > ff", Writes: true},
	} {
		t.Run(row.Name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			k, err := kernel.New(kernel.Config{Tools: Coreutils()})
			if err != nil {
				t.Fatal(err)
			}
			s, err := k.NewSession(kernel.SessionOptions{Dir: root, DiscardSpills: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			silent := fifotest.Hold(t, fifotest.Make(t, root), row.Writes)
			res, err := s.Run(context.Background(), row.Script, kernel.RunOptions{Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if silent.Outlived() {
				t.Fatalf("the call returned only once the FIFO's other end went, after %s", fifotest.WriterHolds)
			}
			deadlineEnds[0].check(t, res)
		})
	}
}
