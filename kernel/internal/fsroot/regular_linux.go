package fsroot

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// OpenRegular opens name for reading when the caller has it listed as a
// regular file (a directory entry of a walk, as grep -r makes): one open
// and one fstat, where Open looks at the name first, lest it be a FIFO
// whose open would wait for a writer. The open cannot wait (O_NONBLOCK),
// and the fstat after it tells that the name is still a regular file; one
// replaced since the listing is closed again and opened as Open opens it.
// (Of a FIFO that replaced it, the open may have met a writer waiting for
// a reader: that writer then finds none, as if this reader had come and
// gone.) Its reads do not stop when ctx ends: a regular file's never
// wait.
func (o *Opener) OpenRegular(ctx context.Context, name string) (io.ReadCloser, error) {
	abs, err := o.resolve(name)
	if err != nil {
		return nil, o.note(pathErr("open", name, err))
	}
	if _, special := o.streamFor(abs); special || hostDevice(abs) {
		return o.Open(ctx, name)
	}
	if err := o.allowed(abs); err != nil {
		return nil, o.note(pathErr("open", name, err))
	}
	const flag = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY
	var fd int
	if o.root == nil {
		fd, err = openFD(abs, flag, 0)
	} else {
		var rel string
		if rel, err = o.root.rel(name, abs); err != nil {
			return nil, o.note(pathErr("open", name, err))
		}
		fd, err = o.root.fast.open(o.root.dir, rel, flag, 0)
	}
	switch {
	case errors.Is(err, errNotAnswered):
		return o.Open(ctx, name)
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		unix.Close(fd)
		return o.Open(ctx, name)
	}
	return &regularFile{fd: fd, name: name}, nil
}

// regularFile reads a regular file by its descriptor: what os.File would,
// without os.NewFile's fcntl and the runtime's bookkeeping of a file.
type regularFile struct {
	fd   int
	name string
}

func (f *regularFile) Read(p []byte) (int, error) {
	if f.fd < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: os.ErrClosed}
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch err {
		case nil:
			if n == 0 && len(p) > 0 {
				return 0, io.EOF
			}
			return n, nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			// A file system that honours O_NONBLOCK for its files: read
			// as a blocking file reads.
			if flags, ferr := unix.FcntlInt(uintptr(f.fd), unix.F_GETFL, 0); ferr == nil {
				if _, ferr = unix.FcntlInt(uintptr(f.fd), unix.F_SETFL, flags&^unix.O_NONBLOCK); ferr == nil {
					continue
				}
			}
		}
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
	}
}

func (f *regularFile) Close() error {
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.name, Err: os.ErrClosed}
	}
	err := unix.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}
