package kernel

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The opens of the descriptor rewrite's words, answered in the session's
// open handler before its opener: a file opened in a marked mode, a
// table's descriptor given to a command, /dev/fd/N, and > under set -C.

var errNoClobber = errors.New("cannot overwrite existing file")

// fdOpen answers the opens of the descriptor rewrite's words: a pull of
// a table's descriptor, a file opened in a marked mode, /dev/fd/N above
// 2 once the session has a table, and > under noclobber; handled is
// false for any other open, which the opener answers.
func (s *Session) fdOpen(ctx context.Context, o *Opener, path string, flag int, perm fs.FileMode) (rw io.ReadWriteCloser, handled bool, err error) {
	i := strings.IndexByte(path, 0)
	if i < 0 {
		if n, ok := strings.CutPrefix(path, "/dev/fd/"); ok && s.fds.used.Load() {
			if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
				rw, err := s.fdPull(ctx, n, flag&(os.O_WRONLY|os.O_RDWR) == 0, false)
				return rw, true, err
			}
		}
		if flag&os.O_TRUNC != 0 && s.fds.noclobber.Load() {
			if err := s.clobbers(ctx, o, path); err != nil {
				return nil, true, err
			}
		}
		return nil, false, nil
	}
	rest := path[i:]
	if n, ok := strings.CutPrefix(rest, shast.FdPath); ok {
		rw, err := s.fdPull(ctx, n, n == "0", false)
		return rw, true, err
	}
	if n, ok := strings.CutPrefix(rest, shast.FdKeepPath); ok {
		rw, err := s.fdPull(ctx, n, n == "0", true)
		return rw, true, err
	}
	held := false
	mode, marked := strings.CutPrefix(rest, shast.OpenMarker)
	if !marked {
		if mode, held = strings.CutPrefix(rest, shast.FdOpenMarker); !held {
			return nil, true, &fs.PathError{Op: "open", Path: path, Err: syscall.ENOENT}
		}
	}
	name := path[:i]
	switch mode {
	case "r":
		flag = os.O_RDONLY
	case "w", "c":
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case "a":
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	case "rw":
		flag = os.O_RDWR | os.O_CREATE
	}
	if mode == "w" && s.fds.noclobber.Load() {
		if err := s.clobbers(ctx, o, name); err != nil {
			return nil, true, err
		}
	}
	rw, err = o.OpenFile(ctx, name, flag, perm)
	if err != nil {
		return nil, true, err
	}
	if held {
		return &heldOpen{rw: rw}, true, nil
	}
	return rw, true, nil
}

// clobbers is the error of > on an existing regular file while set -C is
// on in the shell running ctx's command.
func (s *Session) clobbers(ctx context.Context, o *Opener, name string) error {
	if !bashcompat.HeldOption(interp.HandlerCtx(ctx).Env, "noclobber") {
		return nil
	}
	if fi, err := o.Stat(name); err == nil && fi.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: name, Err: errNoClobber}
	}
	return nil
}

// fdPull gives a command descriptor n (0 to 2) as its scope's table holds
// it: a copy of a file, the stream itself, or for a closed descriptor a
// file that refuses the stream's direction. keep marks exec's, which
// the shell keeps until the call ends.
func (s *Session) fdPull(ctx context.Context, num string, read, keep bool) (io.ReadWriteCloser, error) {
	n, _ := strconv.Atoi(num)
	hc := interp.HandlerCtx(ctx)
	g := &s.fds
	g.mu.Lock()
	defer g.mu.Unlock()
	var e fdEntry
	if t := g.table(fdTableID(hc)); t != nil {
		e = t.entries[n]
	}
	var stream any = e.w
	if read {
		stream = e.r
	}
	var out io.ReadWriteCloser
	switch st := stream.(type) {
	case nil:
		// Closed: reads and writes fail with EBADF, in the shell and in
		// the programs it starts.
		mode := os.O_RDONLY
		if read {
			mode = os.O_WRONLY
		}
		f, err := os.OpenFile(os.DevNull, mode, 0)
		if err != nil {
			return nil, err
		}
		out = closedFile{f}
	case *os.File:
		f, err := dupFile(st)
		if err != nil {
			return nil, &fs.PathError{Op: "dup", Path: num, Err: err}
		}
		out = f
	case io.Writer:
		out = streamRW{w: st}
	default:
		return nil, &fs.PathError{Op: "dup", Path: num, Err: syscall.EBADF}
	}
	if c, ok := out.(closedFile); ok {
		out = c.File
	}
	if f, ok := out.(*os.File); ok && keep {
		g.hold(mvdanpriv.HandlerRunner(hc), n, f)
	}
	return out, nil
}

// closedFile is a closed descriptor's stand-in: a file open in the
// other direction.
type closedFile struct{ *os.File }

// streamRW is a shell's stream as a redirection's file, which the
// redirection's end does not close.
type streamRW struct{ w io.Writer }

func (s streamRW) Read([]byte) (int, error)    { return 0, syscall.EBADF }
func (s streamRW) Write(p []byte) (int, error) { return s.w.Write(p) }
func (streamRW) Close() error                  { return nil }

// dupFile is a new file on f's descriptor, close-on-exec, in f's mode:
// os.File.Fd would put a polled f in blocking mode for good.
func dupFile(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var derr error
	if err := rc.Control(func(fd uintptr) {
		nfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	return os.NewFile(uintptr(nfd), f.Name()), nil
}

// accessMode is f's O_RDONLY, O_WRONLY or O_RDWR: a copy of a pipe
// opened for both would hold its writing end open.
func accessMode(f *os.File) int {
	mode := syscall.O_RDONLY
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) {
			if fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0); err == nil {
				mode = fl & syscall.O_ACCMODE
			}
		})
	}
	return mode
}
