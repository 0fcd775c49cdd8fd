package main

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// closeInheritedOnExec marks every descriptor shelter inherited beyond
// 0, 1 and 2 close-on-exec, so that a program a session starts gets its
// standard streams and what spawn hands it, never a descriptor of
// whoever started shelter (an MCP client's own end of the protocol
// pipes, leaked to it, or a descriptor the caller's shell left open). Go
// opens its own close-on-exec already. main calls it for every verb.
func closeInheritedOnExec() {
	if closeRangeOnExec() {
		return
	}
	dir := "/proc/self/fd"
	if runtime.GOOS != "linux" {
		dir = "/dev/fd"
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		if fd, err := strconv.Atoi(name); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
