package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

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
		fi, err := statFD(fd, rel)
		unix.Close(fd)
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

// statFD is fstat(fd) as a FileInfo named by name's last element, without
// the os.File (and the fcntl that os.NewFile makes) that f.Stat needs.
func statFD(fd int, name string) (fs.FileInfo, error) {
	fi := &statInfo{name: filepath.Base(name)}
	for {
		err := syscall.Fstat(fd, &fi.st)
		if err != syscall.EINTR {
			if err != nil {
				return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
			}
			return fi, nil
		}
	}
}

// statInfo is a FileInfo of a stat(2), as os's own: Sys is the
// *syscall.Stat_t.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (fi *statInfo) Name() string       { return fi.name }
func (fi *statInfo) Size() int64        { return fi.st.Size }
func (fi *statInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi *statInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *statInfo) Sys() any           { return &fi.st }

// Mode is the stat's mode as os.Stat makes it.
func (fi *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(fi.st.Mode & 0o777)
	switch fi.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if fi.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if fi.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if fi.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// openHost opens abs outside any root, a name known to be a regular file
// or a directory, or none yet: open(2) and os.NewFile, without the probe
// of the runtime's poller that os.OpenFile makes of every file it opens
// (two fcntl, an epoll_ctl that a regular file refuses, two fcntl more).
func openHost(name, abs string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := openFD(abs, flag, perm)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), abs), nil
}

// openFD is open(2) of path, close-on-exec, retried when a signal
// interrupts it.
func openFD(path string, flag int, perm fs.FileMode) (int, error) {
	for {
		fd, err := unix.Open(path, flag|unix.O_CLOEXEC, syscallMode(perm))
		if err != unix.EINTR {
			return fd, err
		}
	}
}
