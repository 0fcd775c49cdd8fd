package fsroot

import (
	"context"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Reads and writes done inside shelter's process (the builtins, `$(<f)`,
// the shell's own redirections) cannot be killed as a child can: a read
// from a FIFO whose writer is silent would hold the call past its end.
// So every file that can block there (a FIFO the opener opens, the
// call's own input and the live copy of its output when they are pipes)
// is armed: when the call, job or launcher deadline it was opened under
// ends, its deadline is set to now, and every read or write pending on
// it or made after fails with os.ErrDeadlineExceeded. Only files the Go
// runtime polls have deadlines: a pipe, and on Linux a FIFO opened by
// name; a regular file never blocks.

// An End is the end of a call or a job: the Done of its context, and
// AfterFunc, which runs f in a goroutine of its own once it ends, at once
// if it has, as context.AfterFunc does; stop keeps f from running and
// reports whether it did.
type End interface {
	Done() <-chan struct{}
	AfterFunc(f func()) (stop func() bool)
}

// EndsKey is the context key of a call's or job's [*Ends]: the call's
// or job's context answers it, and so does every context made from it.
type EndsKey struct{}

// Arm makes f's reads and writes fail once ctx ends. A file the
// runtime does not poll (a regular file, a FIFO on systems other than
// Linux, a descriptor a child made blocking) has no deadline to set, and
// is left as it is.
func Arm(ctx context.Context, f *os.File) {
	if f.SetDeadline(time.Time{}) != nil {
		return
	}
	if e, ok := ctx.Value(EndsKey{}).(*Ends); ok && ctx.Done() == e.end.Done() {
		// The call's or job's end: one list for all its files, which a
		// loop opening a FIFO at every turn does not grow without end.
		e.add(f)
		return
	}
	// A shorter end (a launcher's deadline) lives only as long as the
	// command under it: its registrations go with it.
	context.AfterFunc(ctx, func() { f.SetDeadline(time.Now()) })
}

// Ends is the list of files the end of a call or job interrupts. Init
// gives it its end before the first Arm.
type Ends struct {
	end      End
	mu       sync.Mutex
	files    []*os.File
	prune    int  // the length at which closed files are dropped
	watching bool // the end's AfterFunc is registered
	ended    bool
}

// Init makes e the list of files end interrupts.
func (e *Ends) Init(end End) { e.end = end }

func (e *Ends) add(f *os.File) {
	e.mu.Lock()
	if e.ended {
		e.mu.Unlock()
		f.SetDeadline(time.Now())
		return
	}
	if !e.watching {
		e.watching = true
		e.end.AfterFunc(e.interrupt)
	}
	if len(e.files) >= e.prune {
		e.files = slices.DeleteFunc(e.files, closedFile)
		e.prune = max(8, 2*len(e.files))
	}
	e.files = append(e.files, f)
	e.mu.Unlock()
}

// interrupt ends every file listed, and those added after it at once.
func (e *Ends) interrupt() {
	e.mu.Lock()
	e.ended = true
	files := e.files
	e.files = nil
	e.mu.Unlock()
	for _, f := range files {
		f.SetDeadline(time.Now())
	}
}

// closedFile reports whether f was closed.
func closedFile(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return true
	}
	return rc.Control(func(uintptr) {}) != nil
}

// Pollable returns a file on the same pipe as f whose reads (flag
// O_RDONLY) or writes (O_WRONLY) have deadlines, and whether it is a new
// file the caller must close. A pipe or FIFO shelter was given in
// blocking mode (the CLI's own stdin and stdout) is opened again through
// /proc/self/fd: a new open file description, non-blocking, which leaves
// f's mode, shared with whoever else holds it, alone. Where that cannot
// be done (no /proc, a socket, a pipe with no reader), f itself is
// returned.
func Pollable(f *os.File, flag int) (*os.File, bool) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return f, false
	}
	fd, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(int(fdOf(f))), flag|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return f, false
	}
	// Non-blocking, it is polled; its name is f's (/dev/stdin), which a
	// message about it shows.
	g := os.NewFile(uintptr(fd), f.Name())
	if gi, err := g.Stat(); err != nil || !os.SameFile(fi, gi) || g.SetDeadline(time.Time{}) != nil {
		g.Close()
		return f, false
	}
	return g, true
}

// BlockingCopy returns a file on the same pipe as f, in blocking mode,
// for a child, when f is a pipe or FIFO in non-blocking mode (one the
// runtime polls); nil otherwise, or where it cannot be made (no /proc, a
// FIFO opened for writing that has no reader).
func BlockingCopy(f *os.File, flag int) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd, nonblocking := -1, false
	rc.Control(func(d uintptr) {
		fl, err := unix.FcntlInt(d, unix.F_GETFL, 0)
		fd, nonblocking = int(d), err == nil && fl&unix.O_NONBLOCK != 0
	})
	if !nonblocking {
		return nil
	}
	// Opened without blocking, as a FIFO's open would wait for the
	// other end, then put in blocking mode: its own open file
	// description, so f's stays as it is.
	copied, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(fd), flag|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	if syscall.SetNonblock(copied, false) != nil {
		syscall.Close(copied)
		return nil
	}
	g := os.NewFile(uintptr(copied), f.Name())
	if gi, err := g.Stat(); err != nil || !os.SameFile(fi, gi) {
		g.Close()
		return nil
	}
	return g
}

// fdOf is f's descriptor, read without os.File.Fd, which would put a
// non-blocking descriptor in blocking mode for good.
func fdOf(f *os.File) uintptr {
	fd := ^uintptr(0)
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(d uintptr) { fd = d })
	}
	return fd
}
