package builtins

import "syscall"

// ownNiceness is shelter's niceness; Linux's raw getpriority(2) answers
// 20-nice.
func ownNiceness() int {
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return 0
	}
	return 20 - raw
}
