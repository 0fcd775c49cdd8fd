package spawn

import (
	"bytes"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// clockTicks is USER_HZ, the unit of start times in /proc: 100 on every
// architecture Go supports on Linux.
const clockTicks = 100

var subreaper struct {
	once  sync.Once
	err   error
	on    atomic.Bool
	watch sync.Once // SIGCHLD caught and the reaper started
}

// EnableSubreaper makes this process a child subreaper
// (PR_SET_CHILD_SUBREAPER) and arms its reaper. From then on every
// orphaned descendant (a process that left Run's group with setsid or a
// double fork, then lost its parent) is reparented to this process rather
// than to init, and must be reaped by it: the reaper, woken by SIGCHLD,
// reaps those that exit, and [Window.Close] and [EndOrphans] end those
// that do not. It never reaps a child [Run] waits for, nor one in this
// process's own group, which os/exec may be waiting for. SIGCHLD is
// caught from the first start of [Run] on, before its fork: only a
// descendant of a child can become an orphan, and a process that starts
// none (`shelter -c true`) spares the signal's set-up, a thread and a
// round trip to it.
//
// The setting is process-wide and cannot be undone; calling it again does
// nothing and returns the first call's error. It is Linux only.
func EnableSubreaper() error {
	subreaper.once.Do(func() {
		if subreaper.err = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); subreaper.err == nil {
			subreaper.on.Store(true)
		}
	})
	if children.started.Load() > 0 {
		// Those started before may leave orphans from now on.
		watchOrphans()
	}
	return subreaper.err
}

// watchOrphans catches SIGCHLD and starts the reaper, once, when this
// process is a subreaper; a start calls it before it forks.
func watchOrphans() {
	if !subreaper.on.Load() {
		return
	}
	subreaper.watch.Do(func() {
		wake := make(chan os.Signal, 1)
		signal.Notify(wake, syscall.SIGCHLD)
		go func() {
			for range wake {
				reapOrphans()
			}
		}()
	})
}

func subreaping() bool { return subreaper.on.Load() }

// bootTicks is the time in clock ticks since boot, as /proc's start times.
func bootTicks() uint64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0
	}
	return uint64(ts.Nano()) / (1e9 / clockTicks)
}

// orphan is a child of this process that Run did not start.
type orphan struct {
	pid, pgrp int
	zombie    bool
	started   uint64
}

// orphans lists them; the caller holds children.starting for writing.
// Linux has no index of a process's children that every kernel offers,
// so it reads the stat file of every process in /proc.
func orphans() []orphan {
	self, ownGroup := os.Getpid(), syscall.Getpgrp()
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var out []orphan
	var buf [512]byte
	for _, name := range names {
		if name == "" || name[0] < '1' || name[0] > '9' {
			continue
		}
		b := readStat(name, buf[:])
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		// After the comm: state(3) ppid(4) pgrp(5) ... starttime(22).
		f := bytes.Fields(b[i+1:])
		if len(f) < 20 {
			continue
		}
		if ppid, _ := strconv.Atoi(string(f[1])); ppid != self {
			continue
		}
		o := orphan{zombie: f[0][0] == 'Z' || f[0][0] == 'X'}
		o.pid, _ = strconv.Atoi(name)
		o.pgrp, _ = strconv.Atoi(string(f[2]))
		o.started, _ = strconv.ParseUint(string(f[19]), 10, 64)
		if o.pgrp == ownGroup || children.has(o.pid) {
			continue
		}
		out = append(out, o)
	}
	return out
}

// readStat reads /proc/PID/stat into buf, with three system calls; nil
// when the process is gone. A stat line is far shorter than buf.
func readStat(pid string, buf []byte) []byte {
	fd, err := unix.Open("/proc/"+pid+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	n, err := unix.Read(fd, buf)
	if err != nil || n <= 0 {
		return nil
	}
	return buf[:n]
}

func reap(pid int) {
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); err != syscall.EINTR {
			return
		}
	}
}

// reapOrphans reaps the orphans that have exited. Most SIGCHLDs are for
// Run's own children, whose Wait has reaped them by now: with no child
// left to reap, /proc is not read.
func reapOrphans() {
	// Linux fills in the signal number only when it found a child to
	// report; WNOWAIT leaves that child to whoever reaps it.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil || info.Signo == 0 {
		return
	}
	children.starting.Lock()
	defer children.starting.Unlock()
	for _, o := range orphans() {
		if o.zombie {
			reap(o.pid)
		}
	}
}

// endOrphans ends the orphans whose start time matches: SIGTERM at first
// sight, SIGKILL once grace has passed since the first; and it returns
// when none is left, the descendants they leave (reparented in turn)
// included.
func endOrphans(match func(started uint64) bool, grace time.Duration) {
	if !subreaping() {
		return
	}
	kill := time.Now().Add(max(grace, 0))
	signalled := map[int]bool{}
	for poll := time.Millisecond; ; poll = min(2*poll, 50*time.Millisecond) {
		left := 0
		children.starting.Lock()
		for _, o := range orphans() {
			switch {
			case o.zombie:
				reap(o.pid)
			case !match(o.started):
			case grace < 0 || !time.Now().Before(kill):
				signalOrphan(o, syscall.SIGKILL)
				left++
			default:
				if !signalled[o.pid] {
					signalOrphan(o, syscall.SIGTERM)
					signalled[o.pid] = true
				}
				left++
			}
		}
		children.starting.Unlock()
		if left == 0 {
			return
		}
		time.Sleep(poll)
	}
}

// signalOrphan signals the orphan, and its group when it leads one; a
// group it merely belongs to may hold processes of a call still running.
func signalOrphan(o orphan, sig syscall.Signal) {
	if o.pgrp == o.pid {
		syscall.Kill(-o.pid, sig)
	}
	syscall.Kill(o.pid, sig)
}
