package beneath

import (
	"sync"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel beneath fd with openat2(2), RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS, or by walking it where openat2 is not served.
func openBeneath(fd int, rel string, flag int, perm uint32) (int, error) {
	if !HaveOpenat2() {
		return walk(fd, rel, flag, perm)
	}
	how := &unix.OpenHow{
		Flags:   uint64(flag),
		Mode:    uint64(perm),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS,
	}
	if flag&unix.O_CREAT == 0 {
		how.Mode = 0 // openat2 refuses a mode without O_CREAT
	}
	return Openat2(fd, rel, how)
}

// Openat2 is openat2(2) asked again while it answers EINTR or EAGAIN (a
// concurrent rename may have let a lookup escape, and the kernel asks
// for a retry), 64 times at most; then it is EAGAIN.
func Openat2(dirfd int, rel string, how *unix.OpenHow) (int, error) {
	for range 64 {
		fd, err := unix.Openat2(dirfd, rel, how)
		if err != unix.EAGAIN && err != unix.EINTR {
			return fd, err
		}
	}
	return -1, unix.EAGAIN
}

// HaveOpenat2 reports whether the kernel serves openat2(2) (Linux 5.6); a
// seccomp filter may refuse it with ENOSYS or EPERM. It asks once a
// process.
var HaveOpenat2 = sync.OnceValue(func() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})
