// Package fifotest is the table of commands that block inside shelter's
// process on a FIFO whose other end is open and silent, and that silent
// other end: what the tests of docs/security.md's "Deadlines hold" run,
// through the Go API (package builtins) and through the CLI.
package fifotest

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// WriterHolds is how long the silent end stays open: as `sleep 60 > ff`,
// it then goes, and a command still blocked on the FIFO ends on its own
// (end of file, a broken pipe). A deadline that holds ends the call long
// before; [Silent.Outlived] tells which came first.
const WriterHolds = 60 * time.Second

// A Row is a command that blocks on the FIFO ff in its working directory.
type Row struct {
	Name   string
	Script string
	// Writes is true when the command writes to ff: the silent end is
	// then a reader that never reads.
	Writes bool
}

// Rows are the commands that used to outlive their call's deadline: a
// builtin reading a FIFO it names, the shell's `$(<ff)` and `read`, a
// builtin reading a FIFO redirected to its stdin, and one writing to a
// FIFO nobody reads.
var Rows = []Row{
	{Name: "cat", Script: "cat ff"},
	{Name: "substitution", Script: "x=$(<ff)"},
	{Name: "grep", Script: "grep x ff"},
	{Name: "sort", Script: "sort ff"},
	{Name: "head", Script: "head -n1 ff"},
	{Name: "wc", Script: "wc -l ff"},
	{Name: "jq", Script: "jq . ff"},
	{Name: "sed", Script: "sed p ff"},
	{Name: "tr-stdin", Script: "tr a b < ff"},
	{Name: "cat-stdin", Script: "cat < ff"},
	{Name: "read", Script: "read x < ff"},
	{Name: "seq-writes", Script: "seq 1 1000000 > ff", Writes: true},
}

// Make makes the FIFO ff in dir and returns its path.
func Make(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ff")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Silent is the other end of a FIFO, open and silent.
type Silent struct {
	path   string
	writes bool // the command writes: this end reads
	opened chan struct{}
	once   sync.Once
	file   chan *os.File // the end, once open; nil when the open failed
	timer  *time.Timer
	went   atomic.Bool // the end went after WriterHolds
}

// Hold opens the other end of the FIFO at path in the background: for
// writing, or for reading when the command writes (writes). The open
// completes when the command opens its end, and closes Opened. The end
// stays open, writing or reading nothing, until [WriterHolds] has passed
// or the test ends, whichever is first.
func Hold(t testing.TB, path string, writes bool) *Silent {
	s := &Silent{path: path, writes: writes, opened: make(chan struct{}), file: make(chan *os.File, 1)}
	flag := os.O_WRONLY
	if writes {
		flag = os.O_RDONLY
	}
	go func() {
		f, err := os.OpenFile(path, flag, 0)
		if err != nil {
			f = nil
		}
		close(s.opened)
		s.file <- f
	}()
	s.timer = time.AfterFunc(WriterHolds, func() {
		s.went.Store(true)
		s.Go()
	})
	t.Cleanup(s.Go)
	return s
}

// Outlived reports whether the end went after [WriterHolds], which a
// call that obeys its deadline never waits for.
func (s *Silent) Outlived() bool { return s.went.Load() }

// Opened is closed once the command opened its end of the FIFO.
func (s *Silent) Opened() <-chan struct{} { return s.opened }

// Go closes the silent end, as its writer going would; an open still
// waiting for the command is let through first.
func (s *Silent) Go() {
	s.once.Do(func() {
		s.timer.Stop()
		select {
		case <-s.opened:
		default:
			// Open the command's end without blocking: the waiting open
			// returns.
			flag := os.O_RDONLY
			if s.writes {
				flag = os.O_WRONLY
			}
			if f, err := os.OpenFile(s.path, flag|syscall.O_NONBLOCK, 0); err == nil {
				defer f.Close()
			}
		}
		if f := <-s.file; f != nil {
			f.Close()
		}
	})
}

// SilentPipe is a pipe whose other end, the test's, stays open and
// silent for [WriterHolds], then goes: a command's stdin whose writer
// writes nothing, or its stdout whose reader reads nothing.
type SilentPipe struct {
	End   *os.File // the command's end
	timer *time.Timer
	went  atomic.Bool
}

// HoldPipe makes a SilentPipe; End is the read end, or the write end
// when the command writes (writes). Both ends are closed when the test
// ends.
func HoldPipe(t testing.TB, writes bool) *SilentPipe {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &SilentPipe{End: r}
	other := w
	if writes {
		p.End, other = w, r
	}
	p.timer = time.AfterFunc(WriterHolds, func() {
		p.went.Store(true)
		other.Close()
	})
	t.Cleanup(func() {
		p.timer.Stop()
		r.Close()
		w.Close()
	})
	return p
}

// Outlived reports whether the other end went after [WriterHolds].
func (p *SilentPipe) Outlived() bool { return p.went.Load() }
