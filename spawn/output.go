package spawn

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// drainLimit bounds what a drain reads after the wait delay: more than any
// pipe or terminal holds (a pipe holds 64 KiB by default, 1 MiB at most
// without privilege), so reaching it means a writer is still writing.
const drainLimit = 4 << 20

// Test hooks, set only by tests: copyStall is called by every output copy
// before it reads anything, with a channel closed once the wait delay has
// fired; delaySlack is added to the grace to make the wait delay.
var (
	copyStall  func(cut <-chan struct{})
	delaySlack = 100 * time.Millisecond
)

// outputCopy copies what the child writes on one file (a pipe's read end,
// a terminal's master) to a writer, with a pooled buffer: os/exec would
// allocate 32 KiB per stream and child.
//
// Once the child is reaped the copy gets a wait delay to reach end of
// file; past it, [outputCopy.cut] makes it read what the file still holds
// without blocking, then stop. Only what a writer still alive (a process
// that escaped the group) writes after that is lost, and lost reports it.
type outputCopy struct {
	file *os.File
	w    io.Writer
	done chan struct{}

	cutOnce sync.Once
	cutting chan struct{}
	lost    bool // set before done is closed
}

func newOutputCopy(file *os.File, w io.Writer) *outputCopy {
	return &outputCopy{file: file, w: w, done: make(chan struct{}), cutting: make(chan struct{})}
}

var copyBuffers = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

func (c *outputCopy) run() {
	defer close(c.done)
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	if copyStall != nil {
		copyStall(c.cutting)
	}
	for {
		n, err := c.file.Read(*buf)
		if n > 0 {
			if _, werr := c.w.Write((*buf)[:n]); werr != nil {
				// As os/exec: the child gets EPIPE from then on.
				c.file.Close()
				return
			}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			c.drain(*buf)
			return
		}
		if err != nil {
			return
		}
	}
}

// drain reads without blocking what the file holds, to end of file or
// until it is empty with a writer holding it open. That writer may be a
// process of another call, forked while the pipe was being set up, that
// has not yet closed its copy on exec: the copy waits drainSettle for end
// of file before it reports the rest as lost.
func (c *outputCopy) drain(buf []byte) {
	raw, err := c.file.SyscallConn()
	if err != nil {
		c.lost = true
		return
	}
	read := 0
	for {
		var n int
		var rerr error
		cerr := raw.Control(func(fd uintptr) {
			syscall.SetNonblock(int(fd), true)
			for {
				n, rerr = syscall.Read(int(fd), buf)
				if rerr != syscall.EINTR {
					return
				}
			}
		})
		if cerr != nil {
			c.lost = true
			return
		}
		if n <= 0 {
			// EAGAIN: empty, with a writer alive. EIO: a terminal whose
			// last holder is gone, as end of file.
			if rerr == syscall.EAGAIN {
				c.settle(buf, read)
			}
			return
		}
		if _, werr := c.w.Write(buf[:n]); werr != nil {
			return
		}
		if read += n; read >= drainLimit {
			c.lost = true
			return
		}
	}
}

// drainSettle is how long a drained file has to reach end of file. A
// sibling forked on a host loaded past its cores can take a good part of
// a second to reach its exec; an escaped process costs this on top of the
// grace.
const drainSettle = 500 * time.Millisecond

func (c *outputCopy) settle(buf []byte, read int) {
	c.lost = true
	if c.file.SetReadDeadline(time.Now().Add(drainSettle)) != nil {
		return
	}
	for read < drainLimit {
		n, err := c.file.Read(buf)
		if n > 0 {
			if _, werr := c.w.Write(buf[:n]); werr != nil {
				return
			}
			read += n
		}
		if err != nil {
			c.lost = errors.Is(err, os.ErrDeadlineExceeded)
			return
		}
	}
}

// cut ends the copy once it has read what the file holds. A file that
// cannot have a deadline (a terminal on some systems) is closed instead,
// which loses what it held.
func (c *outputCopy) cut() {
	c.cutOnce.Do(func() {
		close(c.cutting)
		if c.file.SetReadDeadline(time.Now()) != nil {
			c.lost = true
			c.file.Close()
		}
	})
}

// finish waits for the copy to reach end of file until deadline, then
// cuts it, and closes the file. It reports whether output was lost.
func (c *outputCopy) finish(deadline time.Time) (lost bool) {
	select {
	case <-c.done:
	default:
		t := time.NewTimer(max(time.Until(deadline), 0))
		select {
		case <-c.done:
		case <-t.C:
			c.cut()
			<-c.done
		}
		t.Stop()
	}
	c.file.Close()
	return c.lost
}

// outputPipes are the pipes of a child's stdout and stderr; one when both
// go to the same writer, none for files.
type outputPipes []*outputPipe

type outputPipe struct {
	child *os.File // the write end, the child's
	*outputCopy
}

// newOutputs gives the child a pipe for each stream that is a writer
// other than a file.
func newOutputs(stdout, stderr io.Writer) (ps outputPipes, childOut, childErr io.Writer, err error) {
	pipeFor := func(w io.Writer) (io.Writer, error) {
		if _, ok := w.(*os.File); ok || w == nil {
			return w, nil
		}
		for _, p := range ps {
			if p.w == w {
				return p.child, nil
			}
		}
		r, wr, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		ps = append(ps, &outputPipe{child: wr, outputCopy: newOutputCopy(r, w)})
		return wr, nil
	}
	if childOut, err = pipeFor(stdout); err == nil {
		childErr, err = pipeFor(stderr)
	}
	if err != nil {
		ps.stop()
		return nil, nil, nil, err
	}
	return ps, childOut, childErr, nil
}

// started closes the child's ends in shelter and starts the copies.
func (ps outputPipes) started() {
	for _, p := range ps {
		p.child.Close()
		go p.run()
	}
}

// wait lets the copies reach end of file within delay, then drains and
// cuts what is still held open. It reports whether output was lost.
func (ps outputPipes) wait(delay time.Duration) (lost bool) {
	deadline := time.Now().Add(delay)
	for _, p := range ps {
		if p.finish(deadline) {
			lost = true
		}
	}
	return lost
}

// stop closes every pipe of a child that did not start.
func (ps outputPipes) stop() {
	for _, p := range ps {
		p.child.Close()
		p.file.Close()
	}
}
