//go:build darwin || freebsd || netbsd

package builtins

import (
	"io/fs"
	"syscall"
	"time"
)

// fsAtime is a file's access time.
func fsAtime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Atimespec.Sec, st.Atimespec.Nsec)
	}
	return fi.ModTime()
}
