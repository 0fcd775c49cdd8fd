package spawn

import (
	"sync"
	"time"
)

// A Window attributes to one call or job the orphans that may have come
// from it: processes that left every group Run ends (setsid, double
// forks) and were reparented to this process because it is a child
// subreaper (see [EnableSubreaper]). Open one with [OpenWindow] when the
// call starts and Close it when the call ends.
//
// Close ends every orphan reparented to this process that started at or
// after the window opened and that no other window still open could have
// started (none opened at or before it): an escaped process is ended once
// no call that could have started it is still running. Start times are
// compared in clock ticks since boot (10 ms), so an orphan started within
// a tick before the window opened may be taken as the window's.
//
// A window in which Run started no process ends nothing and costs no look
// at /proc: an orphan is the descendant of a process, and the processes
// started before it opened are the windows' that were open then.
//
// What a Window cannot do: without [EnableSubreaper], or on a system other
// than Linux, orphans go to init and Close does nothing. An orphan started
// before the window opened (a daemon the embedder ran) is not the
// window's. Orphans of a shelter that is itself SIGKILLed go to init, and
// nothing ends them. Processes in this process's own group are never
// touched: they are children started other than by [Run] (os/exec), or
// theirs.
type Window struct {
	// Grace is the time between SIGTERM and SIGKILL for what Close ends;
	// zero means [DefaultGrace], a negative value kills at once.
	Grace time.Duration

	opened uint64
	starts uint64 // how many processes Run had started when it opened
}

var windows = struct {
	sync.Mutex
	open map[*Window]struct{}
}{open: map[*Window]struct{}{}}

// OpenWindow opens a window: what starts from now on and escapes is its
// until Close.
func OpenWindow() *Window {
	w := &Window{opened: bootTicks(), starts: children.started.Load()}
	windows.Lock()
	windows.open[w] = struct{}{}
	windows.Unlock()
	return w
}

// Close ends the window's orphans, SIGTERM first to each and its process
// group when it leads one, then SIGKILL to what is left after the grace,
// and returns once they are reaped. Closing a window twice does nothing.
func (w *Window) Close() {
	windows.Lock()
	_, open := windows.open[w]
	delete(windows.open, w)
	windows.Unlock()
	if !open || children.started.Load() == w.starts {
		return
	}
	endOrphans(func(started uint64) bool {
		if started < w.opened {
			return false
		}
		windows.Lock()
		defer windows.Unlock()
		for other := range windows.open {
			if other.opened <= started {
				return false
			}
		}
		return true
	}, graceOf(w.Grace))
}

// EndOrphans ends every orphan reparented to this process, whatever
// window it came from, the way [Window.Close] does, and returns once they
// are reaped: for shutting down. It does nothing where [Window.Close]
// does nothing.
func EndOrphans(grace time.Duration) {
	endOrphans(func(uint64) bool { return true }, graceOf(grace))
}

func graceOf(g time.Duration) time.Duration {
	if g == 0 {
		return DefaultGrace
	}
	return g
}
