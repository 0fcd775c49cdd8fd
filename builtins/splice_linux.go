package builtins

import (
	"context"
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

const (
	spliceChunk = 1 << 20  // how much one splice(2) moves at most
	pipeDefault = 64 << 10 // a pipe's capacity as Linux makes it
	pipeMax     = 1 << 20  // the default of /proc/sys/fs/pipe-max-size
)

// spliceCopy moves all of r to w with splice(2) when r is a regular file
// and w a pipe: the file's pages go into the pipe without a copy through
// this process, which is most of what `cat f | …` costs. handled is false
// when nothing was moved and the caller should copy as usual (other kinds
// of files, or a file system splice does not serve); once bytes have
// moved, an error is the read's (rerr) or the write's (werr).
func spliceCopy(ctx context.Context, w io.Writer, r io.Reader) (handled bool, rerr, werr error) {
	src, ok := r.(*os.File)
	if !ok {
		return false, nil, nil
	}
	dst, ok := w.(*os.File)
	if !ok {
		return false, nil, nil
	}
	sfi, err := src.Stat()
	if err != nil || !sfi.Mode().IsRegular() {
		return false, nil, nil
	}
	if fi, err := dst.Stat(); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return false, nil, nil
	}
	rc, err := src.SyscallConn()
	if err != nil {
		return false, nil, nil
	}
	wc, err := dst.SyscallConn()
	if err != nil {
		return false, nil, nil
	}
	if size := sfi.Size(); size > pipeDefault {
		// A pipe of the file's size (up to what an unprivileged process
		// may set) hands the reader the file in one wake-up rather than
		// one per 64 KiB. Where the system refuses, the pipe stays as it
		// is.
		wc.Control(func(fd uintptr) {
			unix.FcntlInt(fd, unix.F_SETPIPE_SZ, int(min(size, pipeMax)))
		})
	}
	moved := false
	for i := 0; ; i++ {
		if i&15 == 15 {
			if err := ctx.Err(); err != nil {
				return true, err, nil
			}
		}
		var n int64
		var serr error
		cerr := rc.Control(func(rfd uintptr) {
			// The pipe's descriptor is non-blocking: a full pipe is
			// EAGAIN, and Write waits in the poller until it drains.
			werr := wc.Write(func(wfd uintptr) bool {
				n, serr = unix.Splice(int(rfd), nil, int(wfd), nil, spliceChunk, unix.SPLICE_F_NONBLOCK|unix.SPLICE_F_MOVE)
				return !errors.Is(serr, unix.EAGAIN)
			})
			if serr == nil && werr != nil {
				serr = werr
			}
		})
		switch {
		case cerr != nil:
			return true, cerr, nil
		case serr == nil && n == 0:
			return true, nil, nil
		case serr == nil:
			moved = true
			continue
		case !moved && (errors.Is(serr, unix.EINVAL) || errors.Is(serr, unix.ENOSYS)):
			return false, nil, nil
		case errors.Is(serr, unix.EPIPE) || errors.Is(serr, os.ErrClosed):
			return true, nil, serr
		}
		return true, serr, nil
	}
}
