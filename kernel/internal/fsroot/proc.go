package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ErrShelterProc is the error of a name that leads into shelter's own
// /proc entries.
var ErrShelterProc = errors.New("shelter's own /proc entries are not readable")

var selfPID = strconv.Itoa(os.Getpid())

// shelterProc reports whether a clean absolute path lies in shelter's own
// /proc entries: /proc/self, /proc/thread-self, and /proc/N for shelter's
// pid or one of its threads.
func shelterProc(abs string) bool {
	rest, ok := strings.CutPrefix(abs, "/proc/")
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	switch first {
	case "self", "thread-self", selfPID:
		return true
	}
	if first == "" || strings.Trim(first, "0123456789") != "" {
		return false
	}
	_, err := os.Lstat("/proc/self/task/" + first)
	return err == nil
}

// checkProcPath resolves a path that lies on /proc and refuses it when it
// leads into shelter's own entries (through a link such as /dev/fd).
func checkProcPath(abs string, follow bool) error {
	p := abs
	if !follow {
		dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
		if err != nil {
			return nil
		}
		p = filepath.Join(dir, filepath.Base(abs))
	} else if r, err := filepath.EvalSymlinks(abs); err == nil {
		p = r
	}
	if shelterProc(p) {
		return ErrShelterProc
	}
	return nil
}

// checkOpened refuses an opened file on /proc that is one of shelter's
// own entries, however the name led there (a symbolic link, a race).
func checkOpened(f *os.File) error {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || shelterProc(p) {
		return ErrShelterProc
	}
	return nil
}

// onProc reports whether a file lies on the proc file system.
func onProc(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	dev := procDev()
	return dev != 0 && uint64(st.Dev) == dev
}

// procDev is the device of the proc file system, 0 where there is none.
var procDev = sync.OnceValue(func() uint64 {
	var st syscall.Stat_t
	if syscall.Stat("/proc/self", &st) != nil {
		return 0
	}
	return uint64(st.Dev)
})
