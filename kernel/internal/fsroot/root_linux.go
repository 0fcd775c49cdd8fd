package fsroot

import (
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// access asks access(2) of the file rel names beneath the root, through
// a descriptor opened there: the check is of that very file.
func (c *Root) access(rel string, mode uint32) error {
	f, err := c.r.OpenFile(rel, unix.O_PATH, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return syscall.Access("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), mode)
}
