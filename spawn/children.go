package spawn

import (
	"os/exec"
	"sync"
	"sync/atomic"
)

// children are the pids [Run] started and has yet to reap. A reaper of
// orphans must never reap one of them, which os/exec waits for: it holds
// starting for writing while it looks and reaps, and a start holds it for
// reading until the new pid is registered.
var children = registry{pids: map[int]struct{}{}}

type registry struct {
	starting sync.RWMutex
	mu       sync.Mutex
	pids     map[int]struct{}
	// started counts the processes started so far: a window in which it
	// did not move has no orphan to end.
	started atomic.Uint64
}

// start runs start, which starts cmd, and registers the child's pid.
func (r *registry) start(cmd *exec.Cmd, start func() error) error {
	watchOrphans()
	r.starting.RLock()
	defer r.starting.RUnlock()
	if err := start(); err != nil {
		return err
	}
	r.mu.Lock()
	r.pids[cmd.Process.Pid] = struct{}{}
	r.mu.Unlock()
	r.started.Add(1)
	return nil
}

// forget drops a pid once os/exec has reaped it.
func (r *registry) forget(pid int) {
	r.mu.Lock()
	delete(r.pids, pid)
	r.mu.Unlock()
}

// has reports whether pid is a child Run waits for; the caller holds
// starting for writing.
func (r *registry) has(pid int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.pids[pid]
	return ok
}
