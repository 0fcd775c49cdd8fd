//go:build !linux

package fsroot

import (
	"os"
	"syscall"
)

// access approximates access(2) beneath the root from the file's mode
// bits, for the effective user.
func (c *Root) access(rel string, mode uint32) error {
	fi, err := c.r.Stat(rel)
	if err != nil {
		return err
	}
	perm := uint32(fi.Mode().Perm())
	if os.Geteuid() == 0 {
		if mode&1 != 0 && perm&0o111 == 0 {
			return syscall.EACCES
		}
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	shift := uint32(0)
	switch {
	case ok && int(st.Uid) == os.Geteuid():
		shift = 6
	case ok && int(st.Gid) == os.Getegid():
		shift = 3
	}
	if (perm>>shift)&mode != mode {
		return syscall.EACCES
	}
	return nil
}
