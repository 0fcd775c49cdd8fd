package spawn

import "syscall"

// sysProcAttr puts the child in a process group of its own when setpgid
// is set (a terminal's session does that otherwise), with SIGKILL as its
// parent-death signal.
func sysProcAttr(setpgid bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: setpgid, Pdeathsig: syscall.SIGKILL}
}

// ownNice is shelter's niceness. The raw getpriority(2) answers 20-nice
// on Linux.
func ownNice() (int, error) {
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	return 20 - raw, err
}
