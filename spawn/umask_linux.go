package spawn

import (
	"io/fs"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// A process's umask belongs to its file-system context, which Linux lets
// one thread take for itself (unshare(CLONE_FS), no privilege needed), and
// fork copies the calling thread's context into the child: a child
// started from such a thread gets its umask, and shelter's own stays as
// it is for every other session.
//
// The thread that starts a child must outlive it, because the child's
// parent-death signal fires when that thread exits, not the process: a
// thread discarded right after the start would kill the child with it.
// So each mask has one starter thread, made on first use and kept for the
// life of the process (there are at most 512 masks; a session uses one or
// two), and never unlocked, so no other goroutine ever runs with its
// umask. New threads the runtime makes meanwhile are cloned by its
// template thread, never from a locked one, so they keep shelter's.
var umaskStarters = struct {
	mu     sync.Mutex
	byMask map[fs.FileMode]chan<- func()
}{byMask: map[fs.FileMode]chan<- func(){}}

// startWithUmask runs start, which starts a child, on the starter thread
// of mask. It fails without running start when the thread cannot have a
// umask of its own.
func startWithUmask(mask fs.FileMode, start func() error) error {
	starter, err := umaskStarter(mask & 0o777)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	starter <- func() { done <- start() }
	return <-done
}

func umaskStarter(mask fs.FileMode) (chan<- func(), error) {
	umaskStarters.mu.Lock()
	defer umaskStarters.mu.Unlock()
	if starter, ok := umaskStarters.byMask[mask]; ok {
		return starter, nil
	}
	starts := make(chan func())
	ready := make(chan error)
	go serveUmask(mask, starts, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	umaskStarters.byMask[mask] = starts
	return starts, nil
}

// serveUmask locks its goroutine to a thread, gives the thread mask as its
// umask, reports on ready, then runs the starts it is sent, forever.
func serveUmask(mask fs.FileMode, starts <-chan func(), ready chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread is never discarded, and its umask is the one
		// /proc reports for the process: serve from another thread,
		// started while this one is held so it cannot be the main one.
		moved := make(chan error)
		go serveUmask(mask, starts, moved)
		err := <-moved
		runtime.UnlockOSThread()
		ready <- err
		return
	}
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		runtime.UnlockOSThread()
		ready <- os.NewSyscallError("unshare(CLONE_FS) for a child's umask", err)
		return
	}
	unix.Umask(int(mask))
	ready <- nil
	for start := range starts {
		start()
	}
}
