package spawn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Limits belong to a whole process, so a starter thread cannot carry them
// as it carries a umask, and os/exec has no hook between fork and exec;
// prlimit(2) right after Start leaves the program running under
// shelter's limits until it lands. A child started with ptrace
// (PTRACE_TRACEME) stops with SIGTRAP right after its execve, before its
// first instruction: its tracer sets the limits and detaches, and only
// then does the program run.
//
// The tracer is the thread that forked, and only that thread may detach
// the child, so a traced start forks, waits for the stop and detaches on
// one locked thread: a starter thread when the child has a umask or drops
// CAP_SYS_PTRACE, otherwise the tracer thread below. Both are kept for the life of the
// process, because a child's parent-death signal fires when the thread
// that forked it exits.

// cldTrapped is CLD_TRAPPED, the code of waitid(2) for a traced child
// that stopped.
const cldTrapped = 4

// ptraceRefused is set once a traced start failed where an untraced one
// succeeded: from then on every start sets its limits after the fact.
var ptraceRefused atomic.Bool

// startLimited starts cmd on thread t (see startUnder) so that the child
// runs under limits from its first instruction; without limits it is
// startUnder's start as is.
func startLimited(cmd *exec.Cmd, t thread, limits []Rlimit) error {
	if len(limits) == 0 {
		return startUnder(t, cmd.Start)
	}
	if ptraceRefused.Load() || gainsPrivilege(cmd.Path) {
		return startThenLimit(cmd, t, limits)
	}
	err := startTraced(cmd, t, limits)
	if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOSYS) {
		return err
	}
	// PTRACE_TRACEME refused under a seccomp or Yama policy, or the
	// program's own execve refused: an untraced start tells them apart.
	reset(cmd)
	if err := startThenLimit(cmd, t, limits); err != nil {
		return err
	}
	if !ptraceRefused.Swap(true) && cmd.Stderr != nil {
		fmt.Fprintln(cmd.Stderr, "spawn: ptrace refused: limits reach each child right after it starts, not before")
	}
	return nil
}

// startThenLimit starts cmd, then sets limits: the program may already
// run under shelter's.
func startThenLimit(cmd *exec.Cmd, t thread, limits []Rlimit) error {
	if err := startUnder(t, cmd.Start); err != nil {
		return err
	}
	setLimits(cmd.Process.Pid, limits)
	return nil
}

// startTraced starts cmd traced, on the starter thread of t or the
// tracer thread, sets limits while the child is stopped after its execve, then
// lets it go.
func startTraced(cmd *exec.Cmd, t thread, limits []Rlimit) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	defer func() { cmd.SysProcAttr.Ptrace = false }()
	start := func() error {
		if err := cmd.Start(); err != nil {
			return err
		}
		return release(cmd, limits)
	}
	if t.special() {
		return startOnThread(t, start)
	}
	return onTracer(start)
}

// release waits for the traced child of cmd to stop after its execve,
// sets limits and detaches it; it runs on the thread that forked it. The
// wait leaves the child waitable (WNOWAIT): a child killed before its stop
// keeps its status for os/exec's Wait, and the detach ends the stop, which
// a wait for exits (os/exec's, by pidfd) never reports anyway. When the
// child cannot be let go it is killed and reaped, and release fails.
func release(cmd *exec.Cmd, limits []Rlimit) error {
	pid := cmd.Process.Pid
	var info unix.Siginfo
	var err error
	for {
		err = unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT|unix.WALL, nil)
		if err != unix.EINTR {
			break
		}
	}
	if err == nil && info.Code != cldTrapped {
		return nil // it died before its first instruction
	}
	if err == nil {
		setLimits(pid, limits)
		err = unix.PtraceDetach(pid)
		if err == unix.ESRCH {
			return nil // killed while stopped: os/exec reaps it
		}
	}
	if err != nil {
		cmd.Process.Kill()
		cmd.Process.Wait()
		return os.NewSyscallError("letting a traced child go", err)
	}
	return nil
}

// setLimits gives the process pid limits, each one it may set.
func setLimits(pid int, limits []Rlimit) {
	for _, l := range limits {
		unix.Prlimit(pid, l.Resource, &unix.Rlimit{Cur: l.Cur, Max: l.Max}, nil)
	}
}

// gainsPrivilege reports whether executing path grants privileges (it is
// set-user-ID or set-group-ID, or has file capabilities), which an execve
// under a tracer without them does not grant.
func gainsPrivilege(path string) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	if st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
		return true
	}
	_, err := unix.Getxattr(path, "security.capability", nil)
	return err == nil
}

// tracer is the thread that starts traced children without a umask of
// their own: one locked thread, made on first use and kept for the life
// of the process, which runs one start at a time.
var tracer = sync.OnceValue(func() chan<- func() {
	starts := make(chan func())
	go func() {
		runtime.LockOSThread()
		for start := range starts {
			start()
		}
	}()
	return starts
})

// onTracer runs start, which starts a child, on the tracer thread.
func onTracer(start func() error) error {
	done := make(chan error, 1)
	tracer() <- func() { done <- start() }
	return <-done
}
