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
//
// The capability bounding set is the thread's too: a thread that dropped
// peekCapabilities from it (see [Cmd.NoPtrace]) starts children that can
// never hold them, while shelter keeps its own.
var starters = struct {
	mu    sync.Mutex
	byKey map[threadKey]chan<- func()
}{byKey: map[threadKey]chan<- func(){}}

// threadKey is what a starter thread gives the children it starts.
type threadKey struct {
	mask     fs.FileMode
	umask    bool // mask is set; otherwise the thread keeps shelter's
	noPtrace bool
}

// startOnThread runs start, which starts a child, on the starter thread
// of t. It fails without running start when the thread cannot be had.
func startOnThread(t thread, start func() error) error {
	starter, err := starterOf(t.key())
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	starter <- func() { done <- start() }
	return <-done
}

func (t thread) key() threadKey {
	k := threadKey{noPtrace: t.noPtrace && holdsSetpcap()}
	if t.umask != nil {
		k.mask, k.umask = *t.umask&0o777, true
	}
	return k
}

// special reports whether children started under t need a starter thread
// of their own.
func (t thread) special() bool { return t.key() != threadKey{} }

func starterOf(k threadKey) (chan<- func(), error) {
	starters.mu.Lock()
	defer starters.mu.Unlock()
	if starter, ok := starters.byKey[k]; ok {
		return starter, nil
	}
	starts := make(chan func())
	ready := make(chan error)
	go serveStarts(k, starts, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	starters.byKey[k] = starts
	return starts, nil
}

// serveStarts locks its goroutine to a thread, gives the thread what k
// says, reports on ready, then runs the starts it is sent, forever.
func serveStarts(k threadKey, starts <-chan func(), ready chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread is never discarded, and its umask is the one
		// /proc reports for the process: serve from another thread,
		// started while this one is held so it cannot be the main one.
		moved := make(chan error)
		go serveStarts(k, starts, moved)
		err := <-moved
		runtime.UnlockOSThread()
		ready <- err
		return
	}
	if k.umask {
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			runtime.UnlockOSThread()
			ready <- os.NewSyscallError("unshare(CLONE_FS) for a child's umask", err)
			return
		}
		unix.Umask(int(k.mask))
	}
	if k.noPtrace {
		for _, c := range peekCapabilities {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
				// The thread is left as it is; it is never unlocked, so
				// it dies with this goroutine and no other code runs on it.
				ready <- os.NewSyscallError("dropping CAP_SYS_PTRACE for children", err)
				return
			}
		}
	}
	ready <- nil
	for start := range starts {
		start()
	}
}

// peekCapabilities each let a process read a non-dumpable process's
// /proc entries (environ, mem, fd/): CAP_SYS_PTRACE, CAP_PERFMON (for
// reading, since Linux 5.8) and CAP_SYS_ADMIN, which implies CAP_PERFMON.
var peekCapabilities = []int{unix.CAP_SYS_PTRACE, unix.CAP_PERFMON, unix.CAP_SYS_ADMIN}

// holdsSetpcap reports whether shelter may drop capabilities from a
// thread's bounding set. Without it shelter is not root, and its children
// gain no capability it lacks but through a program's file capabilities.
var holdsSetpcap = sync.OnceValue(func() bool {
	return unix.Prctl(unix.PR_CAPBSET_READ, unix.CAP_SETPCAP, 0, 0, 0) == nil && hasEffective(unix.CAP_SETPCAP)
})

// hasEffective reports whether the process holds capability c now.
func hasEffective(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) != nil {
		return false
	}
	return data[c/32].Effective&(1<<(c%32)) != 0
}
