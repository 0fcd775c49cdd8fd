package bashcompat

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// MaxReadBytes bounds what one read or one mapfile element takes from its
// input, so that `read x < /dev/zero` ends (status 1) instead of growing
// without end.
const MaxReadBytes = 1 << 20

// errReadTimeout is read -t's deadline passing.
var errReadTimeout = errors.New("read timed out")

// errReadTooLong is a line past MaxReadBytes.
var errReadTooLong = errors.New("line too long")

// inputReader reads a builtin's stdin as bash does, leaving the rest to
// the commands that follow: a byte at a time from a pipe or a terminal;
// from a regular file a chunk, seeking back over what it did not use.
// A read ends at once when ctx ends or the deadline passes.
type inputReader struct {
	ctx      context.Context
	sh       Shell
	f        *os.File
	r        io.Reader // when the input is not a file
	deadline time.Time // zero: none

	regular  bool
	chunk    []byte
	pos      int
	polled   bool // f's reads honour SetReadDeadline
	device   bool // a device that is no terminal: reads do not block
	stop     func() bool
	stopped  chan struct{}
	wake     *awaker // the wake-up pipe of a file without deadlines
	timedOut bool
}

func newInputReader(ctx context.Context, sh Shell, stdin io.Reader, timeout time.Duration) *inputReader {
	in := &inputReader{ctx: sh.AfterFuncContext(ctx), sh: sh} // which the reads' wake-ups register with
	if timeout > 0 {
		in.deadline = time.Now().Add(timeout)
	}
	f, ok := stdin.(*os.File)
	if !ok || f == nil {
		in.r = stdin
		return in
	}
	in.f = f
	fi, err := f.Stat()
	if err == nil && fi.Mode().IsRegular() {
		in.regular = true
		return in
	}
	if f.SetReadDeadline(in.deadline) == nil {
		in.polled = true
		in.stopped = make(chan struct{})
		in.stop = context.AfterFunc(in.ctx, func() {
			f.SetReadDeadline(time.Now())
			close(in.stopped)
		})
		return in
	}
	// /dev/zero and its kind answer at once; only a terminal waits.
	in.device = err == nil && fi.Mode()&os.ModeCharDevice != 0 && !isTerminal(f)
	return in
}

// close resets the file's deadline and gives a regular file back what was
// read ahead.
func (in *inputReader) close() {
	in.wake.close()
	if in.polled {
		if !in.stop() {
			<-in.stopped
		}
		var none time.Time
		if in.sh.CallEnded(in.ctx) {
			none = time.Now() // the file was armed at the call's end: it stays so
		}
		in.f.SetReadDeadline(none)
	}
	if in.regular && in.pos < len(in.chunk) {
		in.f.Seek(int64(in.pos-len(in.chunk)), io.SeekCurrent)
		in.chunk, in.pos = nil, 0
	}
}

func (in *inputReader) readByte() (byte, error) {
	if err := in.ctx.Err(); err != nil {
		return 0, err
	}
	if !in.deadline.IsZero() && !time.Now().Before(in.deadline) && !in.regular {
		in.timedOut = true
		return 0, errReadTimeout
	}
	switch {
	case in.regular:
		if in.pos == len(in.chunk) {
			if in.chunk == nil {
				in.chunk = make([]byte, 4096)
			}
			n, err := in.f.Read(in.chunk[:cap(in.chunk)])
			in.chunk, in.pos = in.chunk[:n], 0
			if n == 0 {
				if err == nil {
					err = io.EOF
				}
				return 0, err
			}
		}
		in.pos++
		return in.chunk[in.pos-1], nil
	case in.device:
		var b [1]byte
		n, err := in.f.Read(b[:])
		if n == 1 {
			return b[0], nil
		}
		if err == nil {
			err = io.EOF
		}
		return 0, err
	case in.polled:
		var b [1]byte
		for {
			n, err := in.f.Read(b[:])
			if n == 1 {
				return b[0], nil
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				if cerr := in.ctx.Err(); cerr != nil {
					return 0, cerr
				}
				in.timedOut = true
				return 0, errReadTimeout
			}
			if err != nil {
				return 0, err
			}
		}
	}
	return in.readByteWaiting()
}

// readByteWaiting reads a byte from an input without deadlines: a
// terminal, a pipe shelter was given in blocking mode, any other reader.
// A file is polled together with a wake-up pipe that ctx ending writes
// to, and read only once it is readable, so that ctx and the timeout end
// the wait without leaving a read pending: an abandoned read would take
// the next byte typed from whoever reads the terminal next (the line
// editor's answer to its cursor query, or the next read). The file's
// mode is left alone (no O_NONBLOCK on a descriptor shared with the
// line editor and children). A reader that is no file is read in a
// goroutine; a byte arriving after the wait ended is lost.
func (in *inputReader) readByteWaiting() (byte, error) {
	if in.f != nil {
		return in.readByteAwake()
	}
	if in.r == nil {
		return 0, io.EOF
	}
	type result struct {
		b   byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		var b [1]byte
		for {
			n, err := in.r.Read(b[:])
			if n == 1 {
				done <- result{b: b[0]}
				return
			}
			if err != nil {
				done <- result{err: err}
				return
			}
		}
	}()
	var timer <-chan time.Time
	if !in.deadline.IsZero() {
		t := time.NewTimer(time.Until(in.deadline))
		defer t.Stop()
		timer = t.C
	}
	select {
	case res := <-done:
		return res.b, res.err
	case <-in.ctx.Done():
		return 0, in.ctx.Err()
	case <-timer:
		in.timedOut = true
		return 0, errReadTimeout
	}
}

// readByteAwake is readByteWaiting for a file: poll(2) on it and on the
// wake-up pipe, with the deadline as poll's timeout.
func (in *inputReader) readByteAwake() (byte, error) {
	if err := in.awaken(); err != nil {
		return 0, err
	}
	rc, err := in.f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var b byte
	var rerr error
	cerr := rc.Control(func(fd uintptr) { b, rerr = in.pollByte(int(fd)) })
	if cerr != nil {
		return 0, cerr
	}
	return b, rerr
}

func (in *inputReader) pollByte(fd int) (byte, error) {
	fds := []unix.PollFd{
		{Fd: int32(fd), Events: unix.POLLIN},
		{Fd: int32(in.wake.fd), Events: unix.POLLIN},
	}
	for {
		timeout := -1
		if !in.deadline.IsZero() {
			left := time.Until(in.deadline)
			if left <= 0 {
				in.timedOut = true
				return 0, errReadTimeout
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		fds[0].Revents, fds[1].Revents = 0, 0
		_, err := unix.Poll(fds, timeout)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if fds[1].Revents != 0 {
			if err := in.ctx.Err(); err != nil {
				return 0, err
			}
		}
		if fds[0].Revents&unix.POLLNVAL != 0 {
			return 0, unix.EBADF
		}
		if fds[0].Revents == 0 {
			continue // the timeout, checked above
		}
		var buf [1]byte
		n, err := unix.Read(fd, buf[:])
		switch {
		case n == 1:
			return buf[0], nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			// Another reader took it first, or a signal came.
			continue
		case err != nil:
			return 0, err
		}
		return 0, io.EOF
	}
}

// awaker is the wake-up pipe of an inputReader's polled reads: ctx
// ending writes a byte to it.
type awaker struct {
	r, w *os.File
	fd   int // r's descriptor
	stop func() bool
	done chan struct{} // closed once ctx's write is done
}

// awaken makes the wake-up pipe, once per reader.
func (in *inputReader) awaken() error {
	if in.wake != nil {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	a := &awaker{r: r, w: w, fd: int(r.Fd()), done: make(chan struct{})}
	a.stop = context.AfterFunc(in.ctx, func() {
		defer close(a.done)
		w.Write([]byte{0})
	})
	in.wake = a
	return nil
}

// close closes the wake-up pipe, once ctx's write to it, if it started,
// is done.
func (a *awaker) close() {
	if a == nil {
		return
	}
	if !a.stop() {
		<-a.done
	}
	a.r.Close()
	a.w.Close()
}

// inputReady answers read -t 0: whether input is waiting (or at its end),
// without reading it.
func inputReady(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok || f == nil {
		return stdin != nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return true
	}
	ready := true
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		ready = err != nil || n > 0
	})
	return ready
}
