package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shelter-sh/shelter/internal/beneath"
)

// beneathFast resolves a name beneath the root with one openat2(2) and
// RESOLVE_BENEATH from a descriptor of the root, where os.Root walks the
// name one element at a time: a stat or an open deep in a tree costs one
// system call instead of one per element (docs/performance.md, "The
// builtins on large inputs"). It is an accelerator only: whatever it
// does not answer for certain (an escape, which os.Root words; a system
// or a seccomp filter without openat2; a race with a rename) is left to
// os.Root, so that the two never disagree.
type beneathFast struct {
	once sync.Once
	// mu keeps fd open while a call uses it: Close takes it whole.
	mu sync.RWMutex
	fd int // O_PATH descriptor of the root, opened at the first use; -1: none
}

func (b *beneathFast) close() {
	b.once.Do(func() { b.fd = -1 }) // never used: nothing to close
	b.mu.Lock()
	if b.fd >= 0 {
		unix.Close(b.fd)
		b.fd = -1
	}
	b.mu.Unlock()
}

// errNotAnswered says the fast path leaves a name to os.Root.
var errNotAnswered = errors.New("not answered beneath")

// open is openat2(root, rel, flag|O_CLOEXEC, RESOLVE_BENEATH). Errors that
// os.Root would meet the same way (no such file, not a directory,
// permission) are returned as they are; any other is errNotAnswered.
func (b *beneathFast) open(dir, rel string, flag int, perm fs.FileMode) (int, error) {
	// An idle session holds no descriptor but its os.Root's.
	b.once.Do(func() {
		b.fd = -1
		if !beneath.HaveOpenat2() {
			return
		}
		if fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
			b.fd = fd
		}
	})
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.fd < 0 {
		return -1, errNotAnswered
	}
	how := unix.OpenHow{Flags: uint64(flag | unix.O_CLOEXEC), Resolve: unix.RESOLVE_BENEATH}
	if flag&os.O_CREATE != 0 {
		how.Mode = uint64(syscallMode(perm))
	}
	fd, err := beneath.Openat2(b.fd, rel, &how)
	switch err {
	case nil:
		return fd, nil
	case unix.ENOENT, unix.ENOTDIR, unix.EACCES, unix.EEXIST, unix.EISDIR, unix.ENAMETOOLONG, unix.ELOOP:
		return -1, err
	}
	// EXDEV (an escape, or a magic link under a root of /), EPERM (a
	// seccomp filter), EAGAIN (renames kept racing), anything else:
	// os.Root decides.
	return -1, errNotAnswered
}

// syscallMode is perm as open(2) takes it.
func syscallMode(perm fs.FileMode) uint32 {
	m := uint32(perm.Perm())
	if perm&fs.ModeSetuid != 0 {
		m |= syscall.S_ISUID
	}
	if perm&fs.ModeSetgid != 0 {
		m |= syscall.S_ISGID
	}
	if perm&fs.ModeSticky != 0 {
		m |= syscall.S_ISVTX
	}
	return m
}

// stat is os.Root's Stat (follow) or Lstat.
func (c *Root) stat(rel string, follow bool) (fs.FileInfo, error) {
	flag := unix.O_PATH
	if !follow {
		flag |= unix.O_NOFOLLOW
	}
	fd, err := c.fast.open(c.dir, rel, flag, 0)
	if err == nil {
		f := os.NewFile(uintptr(fd), filepath.Join(c.dir, rel))
		fi, err := f.Stat()
		f.Close()
		if err == nil {
			return fi, nil
		}
	} else if err != errNotAnswered {
		return nil, &fs.PathError{Op: "statat", Path: rel, Err: err}
	}
	if follow {
		return c.r.Stat(rel)
	}
	return c.r.Lstat(rel)
}

// openPlain is os.Root's OpenFile of a name that is a regular file or a
// directory, or none yet: never a FIFO or a device, whose file must be
// os.OpenFile's own to take deadlines.
func (c *Root) openPlain(rel string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := c.fast.open(c.dir, rel, flag, perm)
	if err == nil {
		return os.NewFile(uintptr(fd), filepath.Join(c.dir, rel)), nil
	}
	if err != errNotAnswered {
		return nil, &fs.PathError{Op: "openat", Path: rel, Err: err}
	}
	return c.r.OpenFile(rel, flag, perm)
}
