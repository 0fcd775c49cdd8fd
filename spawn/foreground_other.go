//go:build !linux

package spawn

import (
	"io"
	"os"
	"syscall"
)

// foreground is a child's hold on a terminal; other systems leave the
// terminal to shelter's process group (see [Cmd.Terminal]).
type foreground struct{}

func takeForeground(t *os.File, attr *syscall.SysProcAttr, stderr io.Writer, alone bool) *foreground {
	return nil
}

func (f *foreground) retryAlone(attr *syscall.SysProcAttr, err error) bool { return false }
func (f *foreground) group(pid int) int                                    { return pid }
func (f *foreground) started(pid int)                                      {}
func (f *foreground) release(ps *os.ProcessState) (interrupted, shared bool) {
	return false, false
}
func (f *foreground) failed() {}
