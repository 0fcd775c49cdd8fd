// Package beneath opens, makes and removes files beneath a directory held
// by a descriptor, following no symbolic link on the way and never
// leaving that directory. shelter makes a session's own files with it
// (its $TMPDIR, its spill directory, spill files and job logs), so that a
// link a session planted where one of them goes is refused, never
// followed.
//
// Names are relative: one or more plain elements joined by "/"; "",
// "." and ".." are refused. On Linux with openat2(2) (5.6) every open
// asks the kernel for RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS; elsewhere, and
// where a seccomp filter refuses openat2, the name is walked one element
// at a time with O_NOFOLLOW, which is as strict for plain names.
package beneath

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrSymlink is the error of a name that meets a symbolic link.
var ErrSymlink = errors.New("is a symbolic link, and shelter follows none to its own files; allowed: a real directory, or none (shelter makes it)")

// errName is the error of a name that is not plain elements.
var errName = errors.New("not a plain relative name")

// Open opens rel beneath dir with flag (os.O_* and syscall.O_*) and, for a
// file it creates, perm. No element of rel may be a symbolic link. The
// file's Name is dir's Name joined with rel.
func Open(dir *os.File, rel string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := checkName(rel); err != nil {
		return nil, pathErr("open", dir, rel, err)
	}
	fd, err := openBeneath(int(dir.Fd()), rel, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, pathErr("open", dir, rel, linkMet(int(dir.Fd()), rel, err))
	}
	return os.NewFile(uintptr(fd), join(dir.Name(), rel)), nil
}

// OpenDir is Open of a directory, for reading its entries or naming
// files beneath it.
func OpenDir(dir *os.File, rel string) (*os.File, error) {
	return Open(dir, rel, os.O_RDONLY|unix.O_DIRECTORY, 0)
}

// Create makes rel beneath dir, a file that must not exist yet (O_EXCL),
// opened for reading and writing.
func Create(dir *os.File, rel string, perm fs.FileMode) (*os.File, error) {
	return Open(dir, rel, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}

// CreateTemp makes a new file in dir named prefix, a random part and
// suffix, as os.CreateTemp does.
func CreateTemp(dir *os.File, prefix, suffix string) (*os.File, error) {
	for range 1000 {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36) + suffix
		f, err := Create(dir, name, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, pathErr("createtemp", dir, prefix+"*"+suffix, fs.ErrExist)
}

// Mkdir makes the directory rel beneath dir; it fails with fs.ErrExist
// when the name exists, whatever it is (a link included).
func Mkdir(dir *os.File, rel string, perm fs.FileMode) error {
	return at(dir, "mkdir", rel, func(fd int, name string) error {
		return unix.Mkdirat(fd, name, uint32(perm.Perm()))
	})
}

// Remove removes the file or empty directory rel beneath dir; a link is
// removed, not followed.
func Remove(dir *os.File, rel string) error {
	return at(dir, "remove", rel, func(fd int, name string) error {
		err := unix.Unlinkat(fd, name, 0)
		if err == unix.EISDIR || err == unix.EPERM {
			if derr := unix.Unlinkat(fd, name, unix.AT_REMOVEDIR); derr != unix.ENOTDIR {
				err = derr
			}
		}
		return err
	})
}

// RemoveAll removes rel beneath dir and everything under it, following
// no link; a directory in it without write permission for its owner is
// given it first. A name that does not exist is no error.
func RemoveAll(dir *os.File, rel string) error {
	err := at(dir, "removeall", rel, removeAllAt)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func removeAllAt(fd int, name string) error {
	err := unix.Unlinkat(fd, name, 0)
	if err == nil || err == unix.ENOENT {
		return nil
	}
	if err != unix.EISDIR && err != unix.EPERM {
		return err
	}
	sub, err := openBeneath(fd, name, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	// A directory made read-only (Go's module cache makes its own so) is
	// made writable first, by descriptor, or nothing in it could go.
	var st unix.Stat_t
	if unix.Fstat(sub, &st) == nil && st.Mode&0o700 != 0o700 {
		unix.Fchmod(sub, 0o700)
	}
	d := os.NewFile(uintptr(sub), name)
	names, err := d.Readdirnames(-1)
	for _, n := range names {
		if rerr := removeAllAt(sub, n); rerr != nil && err == nil {
			err = rerr
		}
	}
	d.Close()
	if err != nil {
		return err
	}
	return unix.Unlinkat(fd, name, unix.AT_REMOVEDIR)
}

// at runs op on the directory that holds rel's last element, opened
// beneath dir, and that element.
func at(dir *os.File, opName, rel string, op func(fd int, name string) error) error {
	if err := checkName(rel); err != nil {
		return pathErr(opName, dir, rel, err)
	}
	fd := int(dir.Fd())
	parent, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		parent, name = rel[:i], rel[i+1:]
	}
	if parent != "" {
		pfd, err := openBeneath(fd, parent, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return pathErr(opName, dir, rel, linkMet(fd, parent, err))
		}
		defer unix.Close(pfd)
		fd = pfd
	}
	return pathErr(opName, dir, rel, op(fd, name))
}

// walk opens rel beneath fd one element at a time, each with O_NOFOLLOW.
func walk(fd int, rel string, flag int, perm uint32) (int, error) {
	cur := fd
	for {
		elem, rest, more := strings.Cut(rel, "/")
		if !more {
			nfd, err := unix.Openat(cur, elem, flag, perm)
			if cur != fd {
				unix.Close(cur)
			}
			return nfd, err
		}
		nfd, err := unix.Openat(cur, elem, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if cur != fd {
			unix.Close(cur)
		}
		if err != nil {
			return -1, err
		}
		cur, rel = nfd, rest
	}
}

// linkMet names the link an open met on rel's way (ELOOP; EMLINK on
// FreeBSD), and tells one from another ENOTDIR: a link opened as a
// directory with O_NOFOLLOW is "not a directory". Each element is looked
// at without following it, after the ones before it were found to be no
// links.
func linkMet(fd int, rel string, err error) error {
	if err != unix.ENOTDIR && err != unix.ELOOP && err != unix.EMLINK {
		return err
	}
	for i := 0; i <= len(rel); i++ {
		if i < len(rel) && rel[i] != '/' {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(fd, rel[:i], &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return linkAt(rel[:i])
		}
	}
	return err
}

func checkName(rel string) error {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return errName
	}
	for elem := range strings.SplitSeq(rel, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return errName
		}
	}
	return nil
}

func join(dir, rel string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + rel
	}
	return dir + "/" + rel
}

// linkAt is ErrSymlink met at the element(s) it holds.
type linkAt string

func (l linkAt) Error() string { return ErrSymlink.Error() }

// pathErr names the full path, or the link met on the way, and reports
// that link (ELOOP; EMLINK on FreeBSD) as ErrSymlink.
func pathErr(op string, dir *os.File, rel string, err error) error {
	if err == nil {
		return nil
	}
	if l, ok := err.(linkAt); ok {
		rel, err = string(l), ErrSymlink
	}
	if err == unix.ELOOP || err == unix.EMLINK {
		err = ErrSymlink
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	if errno, ok := err.(syscall.Errno); ok {
		err = errno
	}
	return &fs.PathError{Op: op, Path: join(dir.Name(), rel), Err: err}
}
