package spawn

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// DefaultGrace is how long a process group has between the first signal
// (SIGTERM unless [Cmd.Signal] says otherwise) and SIGKILL when its call
// ends early.
const DefaultGrace = 2 * time.Second

// Cmd describes one child process. Unlike [exec.Cmd] it has no defaults
// taken from shelter's own process: the environment, the working directory
// and the executable's path are always given.
type Cmd struct {
	// Path is the executable, already resolved (see [LookPath]).
	Path string
	// Args is the argv, name as called first.
	Args []string
	// Env is the complete environment of the child, "NAME=VALUE" each; nil
	// means an empty one, never shelter's own.
	Env []string
	// Dir is the child's working directory; it must be absolute.
	Dir string

	// Stdin is streamed to the child as it reads; nil means /dev/null. An
	// [*os.File] (a pipe of the shell, say) is handed over as is.
	Stdin io.Reader
	// Stdout and Stderr receive what the child prints; nil discards it.
	Stdout, Stderr io.Writer

	// Signal is the first signal the process group gets when ctx ends;
	// zero means SIGTERM.
	Signal syscall.Signal
	// Grace is the time between Signal and SIGKILL to the process group
	// when ctx ends; zero means [DefaultGrace], a negative value kills at
	// once.
	Grace time.Duration

	// Nice is added to shelter's own niceness for the child's process
	// group, right after it starts (like nice(1), but without a wrapper
	// process). It is best effort: a value the process may not set, such
	// as a negative one without privilege, is ignored.
	Nice int

	// TTY, when set, runs the child on a new pseudo-terminal of that size,
	// as the leader of a new session with the terminal as its controlling
	// one. Both its stdout and stderr arrive on Stdout; Stderr is unused.
	// Stdin is copied to the terminal, followed by an end-of-file (^D).
	TTY *pty.Winsize

	// Started, when set, is called with the child's pid right after it
	// starts, and Exited once it has been reaped.
	Started func(pid int)
	Exited  func(pid int)
}

// ErrNoExec is returned by [Run] when the kernel refuses to execute the
// file (ENOEXEC): a file with the exec bit but no #! line, which a shell
// runs as a script.
var ErrNoExec = errors.New("exec format error")

// Run starts c in a process group of its own, waits for it, and returns its
// exit status by shell conventions: the code it exited with, or 128+n when
// signal n killed it; 126 when the file cannot be executed, 127 when it
// does not exist. On Linux the child gets SIGKILL if shelter's thread that
// started it dies.
//
// When ctx ends first, the whole group gets [Cmd.Signal] (SIGTERM) and,
// after the grace, SIGKILL; Run returns once the child is reaped, with
// ctx's error and the status the child died with. When the child exits by
// itself, whatever it left running in its group is ended the same way (in
// the background, Run does not wait for it), so a foreground call leaves
// no process behind.
//
// The error is non-nil only when the child could not start ([ErrNoExec]
// among them) or ctx ended.
func Run(ctx context.Context, c *Cmd) (int, error) {
	if err := ctx.Err(); err != nil {
		return 128 + int(signalOf(c)), err
	}
	cmd := &exec.Cmd{
		Path:   c.Path,
		Args:   c.Args,
		Env:    c.Env,
		Dir:    c.Dir,
		Stdin:  c.Stdin,
		Stdout: c.Stdout,
		Stderr: c.Stderr,
	}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	grace := c.Grace
	if grace == 0 {
		grace = DefaultGrace
	}
	sig := signalOf(c)
	// Pipes held open by an escaped grandchild must not hold the call.
	cmd.WaitDelay = max(grace, 0) + 100*time.Millisecond

	var term *ttyMaster
	var feed *stdinFeed
	var outputs outputPipes
	var err error
	if c.TTY != nil {
		term, err = startTTY(cmd, c)
	} else {
		if feed, err = newStdinFeed(c.Stdin); err != nil {
			return 126, err
		}
		if feed != nil {
			cmd.Stdin = feed.child
		}
		if outputs, err = newOutputs(cmd, c.Stdout, c.Stderr); err != nil {
			feed.stop()
			return 126, err
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err = start(cmd); err == nil {
			feed.started()
			outputs.started()
		}
	}
	if err != nil {
		feed.stop()
		outputs.stop()
		return startStatus(err)
	}
	pid := cmd.Process.Pid
	if c.Nice != 0 {
		renice(pid, c.Nice)
	}
	if c.Started != nil {
		c.Started(pid)
	}

	killed := make(chan struct{})
	stopKill := context.AfterFunc(ctx, func() {
		defer close(killed)
		killGroup(pid, sig, grace)
	})
	waitErr := cmd.Wait()
	feed.stop()
	if !stopKill() {
		<-killed
	}
	// Leftovers of the group: a child that exits does not leave its
	// background work running in the caller's name.
	if ctx.Err() == nil && syscall.Kill(-pid, 0) == nil {
		go killGroup(pid, sig, grace)
	}
	outputs.wait(cmd.WaitDelay)
	if term != nil {
		term.finish(cmd.WaitDelay)
	}
	if c.Exited != nil {
		c.Exited(pid)
	}
	status := exitStatus(cmd.ProcessState)
	if ctx.Err() != nil {
		return status, ctx.Err()
	}
	if waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) && cmd.ProcessState == nil {
		return 1, waitErr
	}
	return status, nil
}

func signalOf(c *Cmd) syscall.Signal {
	if c.Signal == 0 {
		return syscall.SIGTERM
	}
	return c.Signal
}

// stdinFeed streams a reader that is not a file to the child through a
// pipe of its own. Unlike os/exec's copy, Run does not wait for it: a
// reader that never returns must not hold a child that has exited.
type stdinFeed struct {
	child, parent *os.File
	in            io.Reader
}

func newStdinFeed(in io.Reader) (*stdinFeed, error) {
	if in == nil {
		return nil, nil
	}
	if _, ok := in.(*os.File); ok {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &stdinFeed{child: r, parent: w, in: in}, nil
}

// started hands the read end to the child alone and starts the copy.
func (f *stdinFeed) started() {
	if f == nil {
		return
	}
	f.child.Close()
	go func() {
		io.Copy(f.parent, f.in)
		f.parent.Close()
	}()
}

// stop closes the pipe: the copy ends at its next write.
func (f *stdinFeed) stop() {
	if f != nil {
		f.child.Close()
		f.parent.Close()
	}
}

// outputPipe copies what the child writes on one pipe to a writer, with a
// pooled buffer: os/exec would allocate 32 KiB per stream and child.
type outputPipe struct {
	child, parent *os.File
	w             io.Writer
	done          chan struct{}
}

// outputPipes are the pipes of a child's stdout and stderr; one when both
// go to the same writer, none for files.
type outputPipes []*outputPipe

var copyBuffers = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

// newOutputs gives the child a pipe for each stream that is a writer
// other than a file.
func newOutputs(cmd *exec.Cmd, stdout, stderr io.Writer) (outputPipes, error) {
	var ps outputPipes
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
		ps = append(ps, &outputPipe{child: wr, parent: r, w: w, done: make(chan struct{})})
		return wr, nil
	}
	var err error
	if cmd.Stdout, err = pipeFor(stdout); err == nil {
		cmd.Stderr, err = pipeFor(stderr)
	}
	if err != nil {
		ps.stop()
		return nil, err
	}
	return ps, nil
}

// started closes the child's ends in shelter and starts the copies.
func (ps outputPipes) started() {
	for _, p := range ps {
		p.child.Close()
		go p.copy()
	}
}

func (p *outputPipe) copy() {
	defer close(p.done)
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	for {
		n, err := p.parent.Read(*buf)
		if n > 0 {
			if _, werr := p.w.Write((*buf)[:n]); werr != nil {
				// As os/exec: the child gets EPIPE from then on.
				p.parent.Close()
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// wait lets the copies drain; a pipe still held open by an escaped
// grandchild after delay is closed under it.
func (ps outputPipes) wait(delay time.Duration) {
	deadline := time.Now().Add(delay)
	for _, p := range ps {
		select {
		case <-p.done:
			continue
		default:
		}
		t := time.NewTimer(max(time.Until(deadline), 0))
		select {
		case <-p.done:
		case <-t.C:
			p.parent.Close()
			<-p.done
		}
		t.Stop()
	}
	for _, p := range ps {
		p.parent.Close()
	}
}

// stop closes every pipe of a child that did not start.
func (ps outputPipes) stop() {
	for _, p := range ps {
		p.child.Close()
		p.parent.Close()
	}
}

// start retries ETXTBSY: a file just written by a concurrently forked
// process may briefly be held open for writing (go.dev/issue/22315).
func start(cmd *exec.Cmd) error {
	err := cmd.Start()
	for delay := time.Millisecond; errors.Is(err, syscall.ETXTBSY) && delay < 300*time.Millisecond; delay *= 2 {
		time.Sleep(delay)
		cmd.Process = nil
		err = cmd.Start()
	}
	return err
}

// renice sets the niceness of the child's group to shelter's own plus
// adjust. The raw getpriority(2) answers 20-nice on Linux.
func renice(pgid, adjust int) {
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return
	}
	nice := min(max(20-raw+adjust, -20), 19)
	syscall.Setpriority(syscall.PRIO_PGRP, pgid, nice)
}

// killGroup sends sig to the process group, then SIGKILL once grace has
// passed with any member left. It returns when the group is gone or killed.
func killGroup(pgid int, sig syscall.Signal, grace time.Duration) {
	if grace < 0 || sig == syscall.SIGKILL {
		syscall.Kill(-pgid, syscall.SIGKILL)
		return
	}
	if syscall.Kill(-pgid, sig) != nil {
		return
	}
	deadline := time.Now().Add(grace)
	for poll := time.Millisecond; time.Now().Before(deadline); poll = min(2*poll, 50*time.Millisecond) {
		time.Sleep(poll)
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}

func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func startStatus(err error) (int, error) {
	switch {
	case errors.Is(err, syscall.ENOEXEC):
		return 126, ErrNoExec
	case errors.Is(err, syscall.ENOENT):
		return 127, err
	}
	return 126, err
}
