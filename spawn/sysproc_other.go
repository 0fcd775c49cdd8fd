//go:build !linux

package spawn

import "syscall"

// sysProcAttr puts the child in a process group of its own when setpgid
// is set (a terminal's session does that otherwise). Other systems have
// no parent-death signal that os/exec sets.
func sysProcAttr(setpgid bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: setpgid}
}

// ownNice is shelter's niceness; the BSDs answer it as is.
func ownNice() (int, error) {
	return syscall.Getpriority(syscall.PRIO_PROCESS, 0)
}
