package spawn

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// DefaultGrace is how long a process group has between SIGTERM and SIGKILL
// when its call ends early.
const DefaultGrace = 2 * time.Second

// Cmd describes one child process. Unlike [exec.Cmd] it has no defaults
// taken from shelter's own process: the environment, the working directory
// and the executable's path are always given.
type Cmd struct {
	// Path is the executable, already resolved (see [LookPath]).
	Path string
	// Args is the argv, name as called first.
	Args []string
	// Env is the complete environment of the child, "NAME=VALUE" each.
	Env []string
	// Dir is the child's working directory; it must be absolute.
	Dir string

	// Stdin is streamed to the child; nil means /dev/null.
	Stdin io.Reader
	// Stdout and Stderr receive what the child prints; nil discards it.
	Stdout, Stderr io.Writer

	// Grace is the time between SIGTERM and SIGKILL to the process group
	// when ctx ends; zero means [DefaultGrace], a negative value kills at
	// once.
	Grace time.Duration

	// TTY, when set, runs the child on a new pseudo-terminal of that size;
	// its stdout and stderr both arrive on Stdout.
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
// signal n killed it; 126 when the file cannot be executed.
//
// When ctx ends first, the whole group gets SIGTERM and, after the grace,
// SIGKILL; Run returns once the child is reaped, with ctx's error. When the
// child exits by itself, whatever it left running in its group is ended the
// same way, so a foreground call leaves no process behind.
//
// The error is non-nil only when the child could not start (ErrNoExec
// among them) or ctx ended.
func Run(ctx context.Context, c *Cmd) (int, error) {
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
	// Pipes held open by an escaped grandchild must not hold the call.
	cmd.WaitDelay = max(grace, 0) + 100*time.Millisecond

	var term io.Closer
	var err error
	if c.TTY != nil {
		term, err = startTTY(cmd, c)
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		err = start(cmd)
	}
	if err != nil {
		return startStatus(err)
	}
	pid := cmd.Process.Pid
	if c.Started != nil {
		c.Started(pid)
	}

	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
			killGroup(pid, grace)
		case <-done:
		}
	}()
	waitErr := cmd.Wait()
	if term != nil {
		term.Close()
	}
	close(done)
	<-stopped
	// Leftovers of the group: a child that exits does not leave its
	// background work running in the caller's name.
	if ctx.Err() == nil && syscall.Kill(-pid, 0) == nil {
		go killGroup(pid, grace)
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

func startTTY(cmd *exec.Cmd, c *Cmd) (io.Closer, error) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	term, err := pty.StartWithSize(cmd, c.TTY)
	if err != nil {
		return nil, err
	}
	if c.Stdin != nil {
		go io.Copy(term, c.Stdin)
	}
	out := c.Stdout
	if out == nil {
		out = io.Discard
	}
	copied := make(chan struct{})
	go func() {
		// The master reads EIO once the last holder of the terminal exits.
		io.Copy(out, term)
		close(copied)
	}()
	cmd.Cancel = nil
	return &ttyFile{File: term, copied: copied}, nil
}

// killGroup sends SIGTERM to the process group, then SIGKILL once grace has
// passed with any member left. It returns when the group is gone or killed.
func killGroup(pgid int, grace time.Duration) {
	if grace < 0 {
		syscall.Kill(-pgid, syscall.SIGKILL)
		return
	}
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
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
