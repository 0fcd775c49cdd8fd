package fsroot

import (
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Streams are a call's standard streams, which /dev/stdin, /dev/stdout,
// /dev/stderr and /dev/fd/N name; a nil one is a closed descriptor.
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Extra are the call's descriptors from 3 up, entry i being
	// descriptor 3+i, which /dev/fd/N names too; a nil one is closed.
	Extra []*os.File
}

// extra is the call's descriptor fd from 3 up, nil when closed.
func (s Streams) extra(fd int) *os.File {
	if fd < 3 || fd-3 >= len(s.Extra) {
		return nil
	}
	return s.Extra[fd-3]
}

// stream returns the call's stream a name stands for, opened with flag.
func (o *Opener) stream(abs string, flag int) (io.ReadWriteCloser, bool, error) {
	fd, ok := streamFD(abs)
	if !ok {
		return nil, false, nil
	}
	s, err := o.streamOf(fd, flag)
	return s, true, err
}

// streamOf returns the call's stream fd, opened with flag: stdin for
// reading, stdout or stderr for writing; EBADF for any other.
func (o *Opener) streamOf(fd int, flag int) (io.ReadWriteCloser, error) {
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	switch {
	case fd == 0 && o.streams.Stdin != nil && !write:
		return nopCloser{r: o.streams.Stdin}, nil
	case fd == 1 && o.streams.Stdout != nil && write:
		return nopCloser{w: o.streams.Stdout}, nil
	case fd == 2 && o.streams.Stderr != nil && write:
		return nopCloser{w: o.streams.Stderr}, nil
	}
	if f := o.streams.extra(fd); f != nil {
		return nopCloser{r: f, w: f}, nil
	}
	return nil, syscall.EBADF
}

// streamFor returns the call's stream abs stands for, nil when the call
// has none there.
func (o *Opener) streamFor(abs string) (any, bool) {
	fd, ok := streamFD(abs)
	if !ok {
		return nil, false
	}
	switch {
	case fd == 0 && o.streams.Stdin != nil:
		return o.streams.Stdin, true
	case fd == 1 && o.streams.Stdout != nil:
		return o.streams.Stdout, true
	case fd == 2 && o.streams.Stderr != nil:
		return o.streams.Stderr, true
	}
	if f := o.streams.extra(fd); f != nil {
		return f, true
	}
	return nil, true
}

// streamFD reports which descriptor a clean absolute path names when it
// is one of the call's streams.
func streamFD(abs string) (int, bool) {
	switch abs {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	var rest string
	switch {
	case strings.HasPrefix(abs, "/dev/fd/"):
		rest = abs[len("/dev/fd/"):]
	case strings.HasPrefix(abs, "/proc/self/fd/"):
		rest = abs[len("/proc/self/fd/"):]
	case strings.HasPrefix(abs, "/proc/thread-self/fd/"):
		rest = abs[len("/proc/thread-self/fd/"):]
	case strings.HasPrefix(abs, "/proc/"):
		pid, tail, ok := strings.Cut(abs[len("/proc/"):], "/fd/")
		if !ok || pid != selfPID {
			return 0, false
		}
		rest = tail
	default:
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// nopCloser is a call's stream opened by name: closing it leaves the
// stream open.
type nopCloser struct {
	r io.Reader
	w io.Writer
}

func (n nopCloser) Read(p []byte) (int, error) {
	if n.r == nil {
		return 0, syscall.EBADF
	}
	return n.r.Read(p)
}

func (n nopCloser) Write(p []byte) (int, error) {
	if n.w == nil {
		return 0, syscall.EBADF
	}
	return n.w.Write(p)
}

func (nopCloser) Close() error { return nil }

// streamInfo describes a call's stream that is not a file: a pipe.
type streamInfo string

func (s streamInfo) Name() string     { return string(s) }
func (streamInfo) Size() int64        { return 0 }
func (streamInfo) Mode() fs.FileMode  { return fs.ModeNamedPipe | 0o600 }
func (streamInfo) ModTime() time.Time { return time.Time{} }
func (streamInfo) IsDir() bool        { return false }
func (streamInfo) Sys() any           { return nil }
