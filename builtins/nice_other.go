//go:build !linux

package builtins

import "syscall"

// ownNiceness is shelter's niceness, which getpriority(2) answers as is
// outside Linux.
func ownNiceness() int {
	n, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return 0
	}
	return n
}
