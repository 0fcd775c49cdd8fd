package spawn

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// foregrounds are the children that run in a terminal's foreground, by
// the terminal's descriptor, in the order they started. Children that
// run at once (a pipeline's stages) share one process group, as a
// shell's job does: the first to start makes it and gives it the
// terminal, the others join it. When the last member of the group that
// holds the terminal ends, the foreground passes to the latest other
// group still running (a child that could not join), and back to
// shelter's own process group after the last.
var foregrounds = struct {
	sync.Mutex
	live map[int][]member
}{live: map[int][]member{}}

// member is a child in a terminal's foreground and its process group.
// A child that joins a group is a member from before its start (pid 0
// until it is known), so that the group is never taken for empty, and
// its leftovers ended, while the joiner runs but is not yet recorded.
type member struct {
	id        uint64
	pid, pgid int
}

// memberIDs numbers the members.
var memberIDs uint64

// foreground is one child's hold on a terminal (see [Cmd.Terminal]).
type foreground struct {
	id     uint64 // the member's, once it is one
	fd     int
	mode   *unix.Termios // the terminal's mode when the child took it
	stderr io.Writer
	pid    int
	pgid   int // the group joined; 0 for a group of the child's own
	pidfd  int
	done   chan struct{}
}

// takeForeground sets attr so that the child runs in the terminal's
// foreground: it joins the process group of the foreground children
// running when one holds the terminal, unless alone is set; otherwise
// its own group takes the terminal's foreground before its first
// instruction (os/exec does the tcsetpgrp in the child, signals
// blocked). It returns nil, leaving attr alone, when shelter does not
// own the terminal: it is not shelter's controlling terminal, or another
// process group (a shell that put shelter in the background) has its
// foreground.
func takeForeground(t *os.File, attr *syscall.SysProcAttr, stderr io.Writer, alone bool) *foreground {
	if t == nil {
		return nil
	}
	fd := int(t.Fd())
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil {
		return nil
	}
	mode, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil
	}
	f := &foreground{fd: fd, mode: mode, stderr: stderr, pidfd: -1, done: make(chan struct{})}
	foregrounds.Lock()
	defer foregrounds.Unlock()
	held := slices.ContainsFunc(foregrounds.live[fd], func(m member) bool { return m.pgid == pgrp })
	if !held && pgrp != syscall.Getpgrp() {
		return nil
	}
	if held && !alone {
		attr.Setpgid, attr.Pgid = true, pgrp
		f.pgid = pgrp
		memberIDs++
		f.id = memberIDs
		foregrounds.live[fd] = append(foregrounds.live[fd], member{id: f.id, pgid: pgrp})
		return f
	}
	attr.Foreground, attr.Ctty = true, fd
	return f
}

// retryAlone reports whether a start that failed with err is worth
// retrying in a group of the child's own, and sets attr for it: the group
// the child was to join ended (all its members reaped) before the child
// could join it.
func (f *foreground) retryAlone(attr *syscall.SysProcAttr, err error) bool {
	if f == nil || f.pgid == 0 || !errors.Is(err, syscall.EPERM) {
		return false
	}
	f.pgid = 0
	f.leave()
	attr.Pgid = 0
	attr.Foreground, attr.Ctty = true, f.fd
	return true
}

// leave ends the child's membership, if it has one; foregrounds is not
// held.
func (f *foreground) leave() {
	if f.id == 0 {
		return
	}
	foregrounds.Lock()
	defer foregrounds.Unlock()
	f.leaveLocked()
}

func (f *foreground) leaveLocked() {
	live := slices.DeleteFunc(foregrounds.live[f.fd], func(m member) bool { return m.id == f.id })
	if len(live) == 0 {
		delete(foregrounds.live, f.fd)
	} else {
		foregrounds.live[f.fd] = live
	}
	f.id = 0
}

// group is the child's process group.
func (f *foreground) group(pid int) int {
	if f == nil || f.pgid == 0 {
		return pid
	}
	return f.pgid
}

// started records the child as running in the terminal's foreground
// and watches it for stops.
func (f *foreground) started(pid int) {
	if f == nil {
		return
	}
	f.pid = pid
	if f.pgid == 0 {
		f.pgid = pid
	}
	foregrounds.Lock()
	if f.id != 0 {
		for i := range foregrounds.live[f.fd] {
			if m := &foregrounds.live[f.fd][i]; m.id == f.id {
				m.pid = pid
			}
		}
	} else {
		memberIDs++
		f.id = memberIDs
		foregrounds.live[f.fd] = append(foregrounds.live[f.fd], member{id: f.id, pid: pid, pgid: f.pgid})
	}
	foregrounds.Unlock()
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		f.pidfd = fd
		go f.watchStops()
	}
}

// failed takes the terminal back after a start that failed: the child
// may have taken the foreground before its execve failed (a file
// without a #! line, which the caller may run as a script).
func (f *foreground) failed() {
	if f == nil {
		return
	}
	foregrounds.Lock()
	defer foregrounds.Unlock()
	if f.id != 0 {
		f.leaveLocked()
	}
	pgrp, err := unix.IoctlGetInt(f.fd, unix.TIOCGPGRP)
	live := foregrounds.live[f.fd]
	if err != nil || pgrp == syscall.Getpgrp() || slices.ContainsFunc(live, func(m member) bool { return m.pgid == pgrp }) {
		return
	}
	next := syscall.Getpgrp()
	if len(live) > 0 {
		next = live[len(live)-1].pgid
	}
	withoutSIGTTOU(func() { unix.IoctlSetPointerInt(f.fd, unix.TIOCSPGRP, next) })
}

// stopPoll is how often a foreground child is looked at for a stop.
const stopPoll = 50 * time.Millisecond

// watchStops continues the child whenever it stops (Ctrl-Z, SIGTSTP,
// SIGTTIN), and says so once: shelter has no job control to take it
// back with, and a stopped foreground child would hold its call forever.
func (f *foreground) watchStops() {
	t := time.NewTicker(stopPoll)
	defer t.Stop()
	said := false // the line is printed once a child
	for {
		select {
		case <-f.done:
			return
		case <-t.C:
		}
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, f.pidfd, &info, unix.WSTOPPED|unix.WNOHANG, nil)
		if err != nil || info.Code != cldStopped {
			continue
		}
		syscall.Kill(-f.pgid, syscall.SIGCONT)
		if f.stderr != nil && !said {
			said = true
			fmt.Fprintln(f.stderr, "\r\nshelter: job control is not supported: the program was stopped and goes on; end it with Ctrl-C")
		}
	}
}

// cldStopped is CLD_STOPPED, the code of waitid(2) for a stopped child.
const cldStopped = 5

// release ends the child's hold once it is reaped. When it was the last
// member of the group that holds the terminal, the foreground passes to
// the latest other group still running, or back to shelter's group; a
// child killed by a signal then leaves the terminal in the mode it
// found it in, as a shell restores it after a program that could not.
// It reports whether SIGINT killed the child, and whether other members
// of its group still run (its group's leftovers are theirs too).
func (f *foreground) release(ps *os.ProcessState) (interrupted, shared bool) {
	if f == nil {
		return false, false
	}
	close(f.done)
	if f.pidfd >= 0 {
		unix.Close(f.pidfd)
	}
	var signaled bool
	var sig syscall.Signal
	if ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			signaled, sig = true, ws.Signal()
		}
	}
	foregrounds.Lock()
	defer foregrounds.Unlock()
	f.leaveLocked()
	live := foregrounds.live[f.fd]
	shared = slices.ContainsFunc(live, func(m member) bool { return m.pgid == f.pgid })
	if shared {
		return sig == syscall.SIGINT, true
	}
	next := syscall.Getpgrp()
	if len(live) > 0 {
		next = live[len(live)-1].pgid
	}
	pgrp, err := unix.IoctlGetInt(f.fd, unix.TIOCGPGRP)
	holds := err == nil && pgrp == f.pgid
	if holds || signaled {
		withoutSIGTTOU(func() {
			if holds {
				unix.IoctlSetPointerInt(f.fd, unix.TIOCSPGRP, next)
			}
			if signaled {
				unix.IoctlSetTermios(f.fd, unix.TCSETSW, f.mode)
			}
		})
	}
	return sig == syscall.SIGINT, false
}

// withoutSIGTTOU runs fn with SIGTTOU blocked on its thread: a process
// group that is not the terminal's foreground may then set the
// terminal's foreground and mode, which would otherwise stop it. The
// signal is blocked, not ignored, so that no child inherits an ignored
// SIGTTOU.
func withoutSIGTTOU(fn func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old unix.Sigset_t
	n := uint(syscall.SIGTTOU) - 1
	set.Val[n/64] |= 1 << (n % 64)
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old); err != nil {
		fn()
		return
	}
	defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
	fn()
}
