package spawn

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"sync/atomic"
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

	// ExtraFiles are further open files the child inherits: entry i
	// becomes descriptor 3+i, as in [exec.Cmd.ExtraFiles]. They are the
	// caller's to close once Run returns; a nil entry leaves that
	// descriptor closed in the child.
	ExtraFiles []*os.File

	// Signal is the first signal the process group gets when ctx ends (the
	// call's timeout, cancel or close); zero means SIGTERM. A launcher's
	// own signal belongs in DeadlineSignal.
	Signal syscall.Signal
	// Grace is the time between Signal and SIGKILL to the process group
	// when ctx ends; zero means [DefaultGrace], a negative value kills at
	// once.
	Grace time.Duration

	// Deadline, when not zero, is the child's own deadline, distinct from
	// ctx's, as a launcher such as timeout(1) sets one: when it passes the
	// process group gets DeadlineSignal and, DeadlineGrace later, SIGKILL,
	// and Run returns [ErrDeadline]. A deadline already passed fires as
	// soon as the child starts. Whatever these three say, ctx ending still
	// sends Signal and, after Grace, SIGKILL.
	Deadline time.Time
	// DeadlineSignal is the signal sent when Deadline passes; zero means
	// SIGTERM.
	DeadlineSignal syscall.Signal
	// DeadlineGrace is the time between DeadlineSignal and SIGKILL; zero
	// means no SIGKILL follows (timeout(1) without -k), a negative value
	// kills at once.
	DeadlineGrace time.Duration

	// Nice is added to shelter's own niceness for the child's process
	// group, right after it starts (like nice(1), but without a wrapper
	// process). It is best effort: a value the process may not set, such
	// as a negative one without privilege, is ignored.
	Nice int

	// Umask, when not nil, is the child's umask (its permission bits
	// only), set before it runs and never shelter's own, which the other
	// sessions share: on Linux the child is started from a thread with a
	// file-system context of its own (see the package doc). When that
	// thread cannot be had, Run fails with status 126 rather than start
	// the child with another mask. Other systems ignore it. Nil means the
	// child inherits shelter's umask.
	Umask *fs.FileMode

	// Limits are resource limits the child has from its first
	// instruction, as have the processes it starts. On Linux the child is
	// started traced, stopped right after its execve, given the limits
	// with prlimit(2) and let go before it runs; only starts with limits
	// pay for that. A limit the process may not set (a hard limit raised
	// without CAP_SYS_RESOURCE) is skipped: the child keeps shelter's.
	// Three kinds of start set the limits right after the child starts
	// instead, which leaves the program a moment under shelter's: a
	// program that is set-user-ID, set-group-ID or has file capabilities
	// (a traced execve would not grant them), a start with TTY, and every
	// start once ptrace was refused (a seccomp or Yama policy), which the
	// first such child's Stderr notes in one line. Other systems ignore
	// Limits. Nil or empty means the child inherits shelter's limits.
	Limits []Rlimit

	// Confine, when set, has the operating system hold the child and
	// everything it starts to what the [Confinement] names: files,
	// network, signals and privileges. The child is started through the
	// program's own executable, which must call [Init] first in main; it
	// confines the thread it runs on and then executes Path, so Path's
	// first instruction is confined, and a failure to execute Path is
	// reported as an unconfined start reports it. When the host cannot
	// confine as asked (see [Probe]), Run fails with [*ConfineError] and
	// status 126, unless BestEffort is set. Linux only: elsewhere Run
	// fails the same way, or runs the child unconfined with BestEffort.
	Confine *Confinement

	// NoPtrace starts the child without the capabilities that read a
	// non-dumpable process's /proc entries (shelter's environment among
	// them) in its bounding set: CAP_SYS_PTRACE, and CAP_PERFMON and
	// CAP_SYS_ADMIN, which read them too. Even as root the child cannot
	// gain them. On Linux the child is started from a thread of shelter's
	// that dropped them; shelter keeps its own. It changes nothing for a
	// process that is not root, and nothing on other systems. A confined
	// child loses them in any case.
	NoPtrace bool

	// TTY, when set, runs the child on a new pseudo-terminal of that size,
	// as the leader of a new session with the terminal as its controlling
	// one. Both its stdout and stderr arrive on Stdout; Stderr is unused.
	// Stdin is copied to the terminal, followed by an end-of-file (^D).
	TTY *pty.Winsize

	// Terminal, when set, is the terminal the child runs in the
	// foreground of, as a shell runs a command typed at its prompt: the
	// child's process group becomes the terminal's foreground group
	// before its first instruction, so it reads the keyboard and Ctrl-C
	// and Ctrl-Z reach it rather than shelter. Children run on the same
	// terminal at once (a pipeline's stages) share one process group, as
	// a shell's job does: a child started while others hold the terminal
	// joins their group rather than making its own, unless it has a
	// Deadline or a Nice of its own. Once the last member of the group
	// is reaped the foreground passes to the latest other group still
	// holding the terminal, or back to shelter's own group, which must
	// not ignore SIGTTOU for this. What is left of a shared group is
	// ended once its last member exits. A stopped child
	// (Ctrl-Z) is continued, with a line on Stderr: there is no job
	// control to take it back with. A child killed by a signal has the
	// terminal's mode restored to what it found; for one killed by
	// SIGINT (the interrupt key, which reached the child's group alone)
	// Run calls Interrupted before it returns. Terminal is ignored
	// when shelter's group does not own the terminal (another group is
	// in its foreground, or it is not shelter's controlling terminal),
	// with TTY, and on systems other than Linux. It does not set Stdin,
	// Stdout or Stderr.
	Terminal *os.File
	// Interrupted, when set, is called when a child run on Terminal was
	// killed by SIGINT before ctx ended: a shell abandons the rest of
	// the line then, as the key would have interrupted it too had it
	// held the terminal.
	Interrupted func()

	// Started, when set, is called with the child's pid right after it
	// starts, and Exited once it has been reaped.
	Started func(pid int)
	Exited  func(pid int)
}

// Rlimit is one resource limit of a child (see [Cmd.Limits]).
type Rlimit struct {
	// Resource is the system's number of the resource, such as
	// unix.RLIMIT_NOFILE.
	Resource int
	// Cur and Max are the soft and the hard limit in the resource's own
	// units (bytes, seconds, a count); unix.RLIM_INFINITY is no limit.
	Cur, Max uint64
}

// ErrNoExec is returned by [Run] when the kernel refuses to execute the
// file (ENOEXEC): a file with the exec bit but no #! line, which a shell
// runs as a script.
var ErrNoExec = errors.New("exec format error")

// ErrDeadline is returned by [Run] when [Cmd.Deadline] passed before the
// child exited: its signal was sent, and the status is what the child
// died (or exited) with.
var ErrDeadline = errors.New("command deadline passed")

// ErrOutputCut is returned by [Run] when the child exited but a process
// that left its group (or outlived it past the grace) still held its
// output pipe or terminal open once the wait delay had passed. What the
// pipe held then is kept; what that process writes later is lost. The
// status is the child's own.
var ErrOutputCut = errors.New("output cut: still held open by a process that left the group")

// Run starts c in a process group of its own (or its pipeline's, see
// [Cmd.Terminal]), waits for it, and returns its exit status by shell
// conventions: the code it exited with, or 128+n when signal n killed it;
// 126 when the file cannot be executed, 127 when it does not exist. On
// Linux the child gets SIGKILL if shelter's thread that started it dies.
// A child that does not run in a terminal's foreground leads a session
// of its own too (setsid): it has no controlling terminal, and /dev/tty
// is not the terminal of whoever started shelter.
//
// When ctx ends first, the whole group gets [Cmd.Signal] (SIGTERM) and,
// after the grace, SIGKILL; Run returns once the child is reaped, with
// ctx's error and the status the child died with. [Cmd.Deadline] works
// the same way with its own signal and grace, and Run then returns
// [ErrDeadline]. When the child exits by itself, whatever it left running
// in its group is ended the same way (in the background, Run does not
// wait for it), so a foreground call leaves no process behind.
//
// Output the child wrote is never lost to a late reader: once the child is
// reaped, each output pipe has the grace plus a little to reach end of
// file, then what it still holds is read without blocking. Only a pipe
// still held open by a live writer is then closed, and Run returns
// [ErrOutputCut].
//
// The error is non-nil only when the child could not start ([ErrNoExec]
// among them), ctx ended, the deadline passed or output was cut; when more
// than one applies it is the first of: a start error, ctx's error,
// [ErrDeadline], [ErrOutputCut].
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

		ExtraFiles: c.ExtraFiles,
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
	cmd.WaitDelay = max(grace, 0) + delaySlack

	var term *ttyMaster
	var feed *stdinFeed
	var outputs outputPipes
	var fg *foreground
	cs, err := newConfinedStart(c)
	if err != nil {
		return 126, err
	}
	if c.TTY != nil {
		term, err = startTTY(cmd, c, cs)
	} else {
		if feed, err = newStdinFeed(c.Stdin); err != nil {
			return 126, err
		}
		if feed != nil {
			cmd.Stdin = feed.child
		}
		if outputs, cmd.Stdout, cmd.Stderr, err = newOutputs(c.Stdout, c.Stderr); err != nil {
			feed.stop()
			return 126, err
		}
		cmd.SysProcAttr = sysProcAttr(true)
		// A child with a deadline or a niceness of its own is signalled
		// and reniced as a group: it does not share one.
		fg = takeForeground(c.Terminal, cmd.SysProcAttr, c.Stderr, !c.Deadline.IsZero() || c.Nice != 0)
		if fg == nil {
			// Off a terminal, a session of its own as well: no
			// controlling terminal, so no /dev/tty of whoever started
			// shelter. Its group is still its own, numbered by its pid.
			cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Setsid = false, true
		}
		limits := c.Limits
		if cs != nil {
			limits = nil // the helper sets them, right before the program's execve
		}
		err = children.start(cmd, func() error { return start(cmd, cs, threadOf(c), limits) })
		if err != nil && fg.retryAlone(cmd.SysProcAttr, err) {
			reset(cmd)
			err = children.start(cmd, func() error { return start(cmd, cs, threadOf(c), limits) })
		}
		if err == nil {
			feed.started()
			outputs.started()
		}
	}
	if err != nil {
		feed.stop()
		outputs.stop()
		fg.failed()
		return startStatus(err)
	}
	pid := cmd.Process.Pid
	pgid := fg.group(pid)
	if term != nil && cs == nil {
		// A terminal's start is not traced (see Cmd.Limits).
		setLimits(pid, c.Limits)
	}
	if c.Nice != 0 {
		renice(pid, c.Nice)
	}
	fg.started(pid)
	if c.Started != nil {
		c.Started(pid)
	}

	reaped := make(chan struct{})
	var deadlineHit atomic.Bool
	var deadline *time.Timer
	deadlineDone := make(chan struct{})
	if !c.Deadline.IsZero() {
		dsig := c.DeadlineSignal
		if dsig == 0 {
			dsig = syscall.SIGTERM
		}
		dgrace := c.DeadlineGrace
		if dgrace == 0 {
			dgrace = noKill
		}
		deadline = time.AfterFunc(time.Until(c.Deadline), func() {
			defer close(deadlineDone)
			deadlineHit.Store(true)
			killGroup(pid, dsig, dgrace, reaped)
		})
	}
	killed := make(chan struct{})
	stopKill := context.AfterFunc(ctx, func() {
		defer close(killed)
		killGroup(pgid, sig, grace, nil)
	})
	waitErr := cmd.Wait()
	children.forget(pid)
	close(reaped)
	interrupted, shared := fg.release(cmd.ProcessState)
	if interrupted && ctx.Err() == nil && c.Interrupted != nil {
		c.Interrupted()
	}
	feed.stop()
	if deadline != nil && !deadline.Stop() {
		<-deadlineDone
	}
	if !stopKill() {
		<-killed
	}
	// Leftovers of the group: a child that exits does not leave its
	// background work running in the caller's name. They are ended a
	// moment later, not at once: a child that forked to leave the group
	// (setsid -f, daemons) is still in it until its setsid() returns.
	// A group shared with a pipeline's other stages is theirs until the
	// last ends.
	if ctx.Err() == nil && !shared && syscall.Kill(-pgid, 0) == nil {
		time.AfterFunc(leftoverDelay, func() { killGroup(pgid, sig, grace, nil) })
	}
	cut := outputs.wait(cmd.WaitDelay)
	if term != nil && term.wait(cmd.WaitDelay) {
		cut = true
	}
	if c.Exited != nil {
		c.Exited(pid)
	}
	status := exitStatus(cmd.ProcessState)
	switch {
	case ctx.Err() != nil:
		return status, ctx.Err()
	case waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) && cmd.ProcessState == nil:
		return 1, waitErr
	case deadlineHit.Load():
		return status, ErrDeadline
	case cut:
		return status, ErrOutputCut
	}
	return status, nil
}

func signalOf(c *Cmd) syscall.Signal {
	if c.Signal == 0 {
		return syscall.SIGTERM
	}
	return c.Signal
}

// thread is what a child takes from the thread that starts it: its umask
// (nil: shelter's) and, without CAP_SYS_PTRACE in its bounding set,
// what it may never gain.
type thread struct {
	umask    *fs.FileMode
	noPtrace bool
}

func threadOf(c *Cmd) thread { return thread{umask: c.Umask, noPtrace: c.NoPtrace} }

// start starts cmd on thread t (see startUnder) with limits (see
// startLimited), confined as cs says, and retries ETXTBSY: a file just written by a
// concurrently forked process may briefly be held open for writing
// (go.dev/issue/22315).
func start(cmd *exec.Cmd, cs *confinedStart, t thread, limits []Rlimit) error {
	once := func() error {
		return cs.start(cmd, func() error { return startLimited(cmd, t, limits) })
	}
	err := once()
	for delay := time.Millisecond; errors.Is(err, syscall.ETXTBSY) && delay < 300*time.Millisecond; delay *= 2 {
		if beforeRetry != nil {
			beforeRetry()
		}
		time.Sleep(delay)
		reset(cmd)
		err = once()
	}
	return err
}

// beforeRetry, when set (by a test), runs before each retry of a start
// that failed with ETXTBSY.
var beforeRetry func()

// reset makes cmd, whose start failed, one that can start again with the
// same settings: os/exec refuses a second Start of one Cmd, even after a
// first that started nothing.
func reset(cmd *exec.Cmd) {
	*cmd = exec.Cmd{
		Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir,
		Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr,
		ExtraFiles: cmd.ExtraFiles, SysProcAttr: cmd.SysProcAttr,
		Cancel: cmd.Cancel, WaitDelay: cmd.WaitDelay,
	}
}

// startUnder runs start, which starts a child, so that the child gets
// what t says; the zero thread leaves it shelter's.
func startUnder(t thread, start func() error) error {
	if !t.special() {
		return start()
	}
	return startOnThread(t, start)
}

// leftoverDelay is how long the group of a child that exited is left
// before what remains of it is ended.
const leftoverDelay = 50 * time.Millisecond

// noKill is a grace after which no SIGKILL follows.
const noKill = time.Duration(math.MaxInt64)

// killGroup sends sig to the process group, then SIGKILL once grace has
// passed with any member left. It returns when the group is gone or
// killed, or when stop is closed.
func killGroup(pgid int, sig syscall.Signal, grace time.Duration, stop <-chan struct{}) {
	if grace < 0 || sig == syscall.SIGKILL {
		syscall.Kill(-pgid, syscall.SIGKILL)
		return
	}
	if syscall.Kill(-pgid, sig) != nil {
		return
	}
	var expired <-chan time.Time
	if grace != noKill {
		t := time.NewTimer(grace)
		defer t.Stop()
		expired = t.C
	}
	for poll := time.Millisecond; ; poll = min(2*poll, 50*time.Millisecond) {
		t := time.NewTimer(poll)
		select {
		case <-stop:
			t.Stop()
			return
		case <-expired:
			t.Stop()
			syscall.Kill(-pgid, syscall.SIGKILL)
			return
		case <-t.C:
		}
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
	}
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

// renice sets the niceness of the child's group to shelter's own plus
// adjust.
func renice(pgid, adjust int) {
	own, err := ownNice()
	if err != nil {
		return
	}
	syscall.Setpriority(syscall.PRIO_PGRP, pgid, min(max(own+adjust, -20), 19))
}
