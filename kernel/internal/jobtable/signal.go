package jobtable

import (
	"fmt"
	"slices"
	"syscall"
	"time"
)

// signalJob sends sig to every process group of the job. A signal whose
// default action ends a process also ends the job: it starts no further
// command, and what still runs after the grace (at once for TERM and
// KILL) gets the session's SIGTERM, grace, SIGKILL.
func (t *Table) signalJob(j *Entry, sig syscall.Signal, grace time.Duration) error {
	t.mu.Lock()
	pids := slices.Clone(j.pids)
	ignoring := 0
	for _, pid := range pids {
		if sig == syscall.SIGHUP && t.nohup[pid] {
			ignoring++
		}
	}
	ending := terminates(sig) && (ignoring == 0 || ignoring < len(pids))
	if ending && j.signal == 0 {
		j.signal = sig
	}
	nohup := make(map[int]bool, len(pids))
	for _, pid := range pids {
		nohup[pid] = t.nohup[pid]
	}
	t.mu.Unlock()
	for _, pid := range pids {
		if sig == syscall.SIGHUP && nohup[pid] {
			continue
		}
		if err := syscall.Kill(-pid, sig); err != nil && err != syscall.ESRCH {
			return fmt.Errorf("%%%d: %v", j.id, err)
		}
	}
	switch {
	case !ending:
	case sig == syscall.SIGTERM || sig == syscall.SIGKILL:
		j.cancel()
	default:
		// Let a process that handles the signal finish on its own.
		stop := time.AfterFunc(grace, j.cancel)
		go func() {
			<-j.done
			stop.Stop()
		}()
	}
	return nil
}

func (t *Table) signalProcess(pid int, sig syscall.Signal) error {
	t.mu.Lock()
	ignored := sig == syscall.SIGHUP && t.nohup[pid]
	t.mu.Unlock()
	if ignored {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("%d: %v", pid, err)
	}
	return nil
}

// terminates reports whether a signal's default action ends a process.
func terminates(sig syscall.Signal) bool {
	switch sig {
	case 0, syscall.SIGCONT, syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU,
		syscall.SIGCHLD, syscall.SIGWINCH, syscall.SIGURG:
		return false
	}
	return true
}
