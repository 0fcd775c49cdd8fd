package fsroot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// An Opener is a call's view of the file system: every file the kernel
// and its builtins open, stat, list or create goes through one
// (docs/sandbox.md). Names are relative to the call's working directory.
//
// In every profile, /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N and
// /proc/self/fd/N are the call's own streams, and shelter's own /proc
// entries are refused. The file an open gives is checked too, whatever
// the name: shelter's own stdin, stdout or stderr is the call's stream
// of that number, and a pipe, terminal or device shelter holds on
// another descriptor is refused with [ErrShelterDescriptor]. In the
// sandbox profile every name resolves beneath the session's root: "..",
// absolute names and symbolic links cannot leave it. Errors are
// *fs.PathError values naming what was asked for.
type Opener struct {
	dir     string
	root    *Root       // nil outside the sandbox
	tmp     *SessionDir // the session's $TMPDIR, made when a name reaches it
	spills  *SessionDir // the session's spill directory, shelter's own
	streams Streams
	// refused records, for the call the opener serves, that a name was
	// refused as outside the root: the call's failure is then a refusal
	// (status 2).
	refused *atomic.Bool
	umask   func(context.Context) (fs.FileMode, bool)
}

// New returns the opener of a call whose working directory is dir and
// whose streams are streams. Names resolve beneath root; a nil root is
// the host's file system. tmp and spills are the session's $TMPDIR and
// spill directory: $TMPDIR is made when a name may lie in it, and
// changes to shelter's own files are refused ([ShelterDirError]); when
// either is nil, neither is done. refused, when not nil, is set when a
// name is refused as outside the root. umask, when not nil, is the
// umask set in the shell that runs ctx's command (ok false for none),
// which the files OpenFile creates get.
func New(dir string, root *Root, tmp, spills *SessionDir, streams Streams, refused *atomic.Bool, umask func(ctx context.Context) (mask fs.FileMode, ok bool)) *Opener {
	return &Opener{dir: dir, root: root, tmp: tmp, spills: spills, streams: streams, refused: refused, umask: umask}
}

// note records on the opener's call that err refused a name as outside
// the root, and returns err.
func (o *Opener) note(err error) error {
	if err != nil && o.refused != nil && errors.Is(err, ErrOutsideRoot) {
		o.refused.Store(true)
	}
	return err
}

// Abs returns name as an absolute, clean path, relative names joined to
// the working directory.
func (o *Opener) Abs(name string) string {
	abs := o.lexical(name)
	if o.tmp != nil {
		// Every name an opener serves passes here: $TMPDIR exists before
		// the first that may lie in it is used.
		o.tmp.touches(abs)
	}
	return abs
}

// lexical is name made absolute and clean.
func (o *Opener) lexical(name string) string {
	var abs string
	switch {
	case name == os.DevNull:
		abs = name // the most opened name of all, clean already
	case filepath.IsAbs(name):
		abs = filepath.Clean(name)
	default:
		abs = filepath.Join(o.dir, name)
	}
	return abs
}

// absMade is Abs, and the error of making $TMPDIR when the name may lie
// in it and it could not be made (a name taken, a link planted): such a
// name is not used, so that it leads nowhere but the session's own
// directory.
func (o *Opener) absMade(name string) (string, error) {
	abs := o.lexical(name)
	if o.tmp != nil {
		if err := o.tmp.touches(abs); err != nil {
			return "", tmpDirError{err}
		}
	}
	return abs, nil
}

// tmpDirError is the error of a name under $TMPDIR when $TMPDIR could not
// be made. It does not unwrap to the *fs.PathError of the mkdir, so that
// the refusal names the name the script gave, then the mkdir.
type tmpDirError struct{ err error }

func (e tmpDirError) Error() string { return "temporary directory: " + e.err.Error() }

func (e tmpDirError) Is(target error) bool { return errors.Is(e.err, target) }

// resolve is Abs of name, or ENOENT for the empty name, which is no
// file, as for the system: joined to the working directory it would name
// that directory, and `[ -e "$unset" ]` or `touch ""` would hold.
func (o *Opener) resolve(name string) (string, error) {
	if name == "" {
		return "", syscall.ENOENT
	}
	return o.absMade(name)
}

// Dir is the working directory names are relative to.
func (o *Opener) Dir() string { return o.dir }

// Confined reports whether the opener is confined to a root directory (the
// sandbox profile), and which.
func (o *Opener) Confined() (root string, ok bool) {
	if o.root == nil {
		return "", false
	}
	return o.root.dir, true
}

// Open opens name for reading.
func (o *Opener) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return o.OpenFile(ctx, name, os.O_RDONLY, 0)
}

// OpenFile opens name as os.OpenFile does. A file it creates gets the
// permissions the session's umask lets through. An open that would block
// (a FIFO with no other end) gives up when ctx ends, and a FIFO's reads
// and writes fail once ctx ends (with os.ErrDeadlineExceeded, on systems
// whose FIFOs have deadlines: Linux).
func (o *Opener) OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	rw, err := o.openChecked(ctx, name, flag, perm)
	return rw, o.note(err)
}

func (o *Opener) openChecked(ctx context.Context, name string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	abs, err := o.resolve(name)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	if f, ok, err := o.stream(abs, flag); ok {
		return f, pathErr("open", name, err)
	}
	if err := o.allowed(abs); err != nil {
		return nil, pathErr("open", name, err)
	}
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 && !hostDevice(abs) {
		if err := o.own(abs, changeFile); err != nil {
			return nil, pathErr("open", name, err)
		}
	}
	f, err := o.openFile(ctx, name, abs, flag, perm)
	var own *ownFile
	if errors.As(err, &own) {
		s, err := o.ownStream(own.held, flag)
		return s, pathErr("open", name, err)
	}
	if err != nil {
		return nil, err
	}
	if abs == os.DevNull {
		return f, nil
	}
	rw, err := o.vetOpened(f, flag)
	return rw, pathErr("open", name, err)
}

func (o *Opener) openFile(ctx context.Context, name, abs string, flag int, perm fs.FileMode) (*os.File, error) {
	if abs == os.DevNull {
		// The most opened file of all (`>/dev/null`) is no FIFO, and it
		// exists: the look before the open has nothing to find.
		return o.rawOpen(name, abs, flag, perm)
	}
	fi, err := o.stat(name, abs, true)
	if err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		f, err := o.openFIFO(ctx, name, abs, flag, perm)
		if err == nil {
			// Its reads and writes end with ctx, whoever makes them.
			Arm(ctx, f)
		}
		return f, err
	}
	if err == nil && flag&os.O_TRUNC != 0 && fi.Mode().IsRegular() {
		// Truncating is done by the open: shelter's own standard
		// streams are recognised before it (vetOpened sees the rest).
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			if held, any := ownStdio(st); any {
				return nil, &ownFile{held}
			}
		}
	}
	var mask fs.FileMode
	var masked bool
	if o.umask != nil {
		mask, masked = o.umask(ctx)
	}
	if flag&os.O_CREATE == 0 || err == nil || !masked {
		return o.rawOpen(name, abs, flag, perm)
	}
	// shelter's own umask applies too on create, so the file is chmodded
	// to exactly what the session's umask lets through; O_EXCL makes sure
	// it is the file this open created. One that appeared since the stat
	// (or a dangling symlink's target) is opened as it is.
	f, err := o.rawOpen(name, abs, flag|os.O_EXCL, perm&^mask)
	if errors.Is(err, fs.ErrExist) && flag&os.O_EXCL == 0 {
		return o.rawOpen(name, abs, flag, perm&^mask)
	}
	if err != nil {
		return nil, err
	}
	f.Chmod(perm &^ mask)
	return f, nil
}

func (o *Opener) rawOpen(name, abs string, flag int, perm fs.FileMode) (*os.File, error) {
	if o.root == nil || hostDevice(abs) {
		f, err := os.OpenFile(abs, flag, perm)
		return f, named(err, name)
	}
	rel, err := o.root.rel(name, abs)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	f, err := o.root.r.OpenFile(rel, flag, perm)
	return f, o.root.fix(err, "open", name)
}

// openFIFO opens a FIFO in a goroutine. When ctx ends first, it opens the
// other end itself, without blocking, so that the pending open returns,
// and closes both.
func (o *Opener) openFIFO(ctx context.Context, name, abs string, flag int, perm fs.FileMode) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := o.rawOpen(name, abs, flag, perm)
		done <- opened{f, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-ctx.Done():
	}
	other := os.O_WRONLY
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		other = os.O_RDONLY
	}
	if f, err := o.rawOpen(name, abs, other|syscall.O_NONBLOCK, 0); err == nil {
		defer f.Close()
	}
	if r := <-done; r.f != nil {
		r.f.Close()
	}
	return nil, ctx.Err()
}

// Stat returns the file's information, following symbolic links.
func (o *Opener) Stat(name string) (fs.FileInfo, error) {
	fi, err := o.statChecked("stat", name, true)
	return fi, o.note(err)
}

// Lstat returns the file's information; a symbolic link is described,
// not followed.
func (o *Opener) Lstat(name string) (fs.FileInfo, error) {
	fi, err := o.statChecked("lstat", name, false)
	return fi, o.note(err)
}

func (o *Opener) statChecked(op, name string, follow bool) (fs.FileInfo, error) {
	abs, err := o.resolve(name)
	if err != nil {
		return nil, pathErr(op, name, err)
	}
	if s, ok := o.streamFor(abs); ok {
		if f, isFile := s.(*os.File); isFile {
			return f.Stat()
		}
		if s == nil {
			return nil, pathErr(op, name, syscall.EBADF)
		}
		return streamInfo(filepath.Base(abs)), nil
	}
	if err := o.allowed(abs); err != nil {
		return nil, pathErr(op, name, err)
	}
	fi, err := o.stat(name, abs, follow)
	if err != nil {
		return nil, err
	}
	if onProc(fi) {
		if err := checkProcPath(abs, follow); err != nil {
			return nil, pathErr(op, name, err)
		}
	}
	return fi, nil
}

func (o *Opener) stat(name, abs string, follow bool) (fs.FileInfo, error) {
	if o.root == nil || hostDevice(abs) {
		var fi fs.FileInfo
		var err error
		if follow {
			fi, err = os.Stat(abs)
		} else {
			fi, err = os.Lstat(abs)
		}
		return fi, named(err, name)
	}
	rel, err := o.root.rel(name, abs)
	if err != nil {
		return nil, pathErr("stat", name, err)
	}
	var fi fs.FileInfo
	if follow {
		fi, err = o.root.r.Stat(rel)
	} else {
		fi, err = o.root.r.Lstat(rel)
	}
	return fi, o.root.fix(err, "stat", name)
}

// ReadDir lists a directory, sorted by name.
func (o *Opener) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := o.OpenFile(context.Background(), name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, ok := f.(*os.File)
	if !ok {
		return nil, pathErr("readdir", name, syscall.ENOTDIR)
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, pathErr("readdir", name, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// Access reports whether the file may be read (mode 4), written (2) or
// executed (1), as access(2) does.
func (o *Opener) Access(name string, mode uint32) error {
	return o.note(o.access(name, mode))
}

func (o *Opener) access(name string, mode uint32) error {
	abs, err := o.resolve(name)
	if err != nil {
		return pathErr("access", name, err)
	}
	if s, ok := o.streamFor(abs); ok {
		if s == nil {
			return pathErr("access", name, syscall.EBADF)
		}
		return nil
	}
	if err := o.allowed(abs); err != nil {
		return pathErr("access", name, err)
	}
	if o.root == nil || hostDevice(abs) {
		return pathErr("access", name, syscall.Access(abs, mode))
	}
	rel, err := o.root.rel(name, abs)
	if err != nil {
		return pathErr("access", name, err)
	}
	return o.root.fix(o.root.access(rel, mode), "access", name)
}

// Mkdir creates a directory.
func (o *Opener) Mkdir(name string, perm fs.FileMode) error {
	return o.do("mkdir", name, func(p string) error { return os.Mkdir(p, perm) },
		func(r *os.Root, p string) error { return r.Mkdir(p, perm) })
}

// MkdirAll creates a directory and any parents it lacks.
func (o *Opener) MkdirAll(name string, perm fs.FileMode) error {
	return o.do("mkdir", name, func(p string) error { return os.MkdirAll(p, perm) },
		func(r *os.Root, p string) error { return r.MkdirAll(p, perm) })
}

// Remove removes a file or an empty directory.
func (o *Opener) Remove(name string) error {
	return o.do("remove", name, os.Remove, (*os.Root).Remove)
}

// RemoveAll removes name and everything it contains.
func (o *Opener) RemoveAll(name string) error {
	return o.do("remove", name, os.RemoveAll, (*os.Root).RemoveAll)
}

// Chmod changes a file's mode.
func (o *Opener) Chmod(name string, mode fs.FileMode) error {
	return o.do("chmod", name, func(p string) error { return os.Chmod(p, mode) },
		func(r *os.Root, p string) error { return r.Chmod(p, mode) })
}

// Chtimes changes a file's access and modification times.
func (o *Opener) Chtimes(name string, atime, mtime time.Time) error {
	return o.do("chtimes", name, func(p string) error { return os.Chtimes(p, atime, mtime) },
		func(r *os.Root, p string) error { return r.Chtimes(p, atime, mtime) })
}

// Readlink returns a symbolic link's target.
func (o *Opener) Readlink(name string) (string, error) {
	var target string
	err := o.do("readlink", name,
		func(p string) (err error) { target, err = os.Readlink(p); return err },
		func(r *os.Root, p string) (err error) { target, err = r.Readlink(p); return err })
	return target, err
}

// Rename renames (moves) oldname to newname.
func (o *Opener) Rename(oldname, newname string) error {
	return o.do2("rename", oldname, newname, os.Rename, (*os.Root).Rename)
}

// Link creates newname as a hard link to oldname.
func (o *Opener) Link(oldname, newname string) error {
	return o.do2("link", oldname, newname, os.Link, (*os.Root).Link)
}

// Symlink creates name as a symbolic link to target. Beneath a root the
// link must resolve inside it; a target that is an absolute path under
// the root is written relative, which is how a confined link must read.
func (o *Opener) Symlink(target, name string) error {
	return o.note(o.symlink(target, name))
}

func (o *Opener) symlink(target, name string) error {
	abs, err := o.resolve(name)
	if err == nil {
		err = o.own(abs, changeEntry)
	}
	if err != nil {
		return pathErr("symlink", name, err)
	}
	if o.root == nil {
		if err := o.allowed(abs); err != nil {
			return pathErr("symlink", name, err)
		}
		return named(os.Symlink(target, abs), name)
	}
	rel, err := o.root.rel(name, abs)
	if err != nil {
		return pathErr("symlink", name, err)
	}
	resolved := target
	if !filepath.IsAbs(target) {
		resolved = filepath.Join(filepath.Dir(abs), target)
	}
	if !o.root.Under(filepath.Clean(resolved)) {
		return pathErr("symlink", name, fmt.Errorf("target %s is %w", target, o.root.Outside()))
	}
	if filepath.IsAbs(target) {
		if target, err = filepath.Rel(filepath.Dir(abs), filepath.Clean(target)); err != nil {
			return pathErr("symlink", name, err)
		}
	}
	return o.root.fix(o.root.r.Symlink(target, rel), "symlink", name)
}

// EvalSymlinks returns the absolute path name leads to, every symbolic
// link resolved (realpath(3)). Beneath a root it never leaves the root.
func (o *Opener) EvalSymlinks(name string) (string, error) {
	p, err := o.evalSymlinks(name)
	return p, o.note(err)
}

func (o *Opener) evalSymlinks(name string) (string, error) {
	abs, err := o.resolve(name)
	if err == nil {
		err = o.allowed(abs)
	}
	if err != nil {
		return "", pathErr("realpath", name, err)
	}
	if o.root == nil {
		p, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", err
		}
		if err := o.allowed(p); err != nil {
			return "", pathErr("realpath", name, err)
		}
		return p, nil
	}
	return o.root.evalSymlinks(name, abs)
}

// do runs a one-name operation on the host or beneath the root.
func (o *Opener) do(op, name string, host func(string) error, rooted func(*os.Root, string) error) error {
	return o.note(o.do1(op, name, host, rooted))
}

func (o *Opener) do1(op, name string, host func(string) error, rooted func(*os.Root, string) error) error {
	abs, err := o.resolve(name)
	if err == nil {
		err = o.allowed(abs)
	}
	if err != nil {
		return pathErr(op, name, err)
	}
	if _, ok := o.streamFor(abs); ok {
		return pathErr(op, name, syscall.EPERM)
	}
	if op != "readlink" {
		if err := o.own(abs, opChange(op)); err != nil {
			return pathErr(op, name, err)
		}
	}
	if o.root == nil {
		return named(host(abs), name)
	}
	rel, err := o.root.rel(name, abs)
	if err != nil {
		return pathErr(op, name, err)
	}
	return o.root.fix(rooted(o.root.r, rel), op, name)
}

// do2 runs a two-name operation on the host or beneath the root.
func (o *Opener) do2(op, oldname, newname string, host func(string, string) error, rooted func(*os.Root, string, string) error) error {
	return o.note(o.do2Checked(op, oldname, newname, host, rooted))
}

func (o *Opener) do2Checked(op, oldname, newname string, host func(string, string) error, rooted func(*os.Root, string, string) error) error {
	var abs [2]string
	for i, name := range [2]string{oldname, newname} {
		var err error
		if abs[i], err = o.resolve(name); err == nil {
			err = o.allowed(abs[i])
		}
		if err == nil {
			err = o.own(abs[i], opChange(op))
		}
		if err != nil {
			return pathErr(op, name, err)
		}
	}
	oldAbs, newAbs := abs[0], abs[1]
	if o.root == nil {
		return named(host(oldAbs, newAbs), oldname)
	}
	oldRel, err := o.root.rel(oldname, oldAbs)
	if err != nil {
		return pathErr(op, oldname, err)
	}
	newRel, err := o.root.rel(newname, newAbs)
	if err != nil {
		return pathErr(op, newname, err)
	}
	err = rooted(o.root.r, oldRel, newRel)
	return o.root.fix(err, op, oldname)
}

// allowed refuses shelter's own /proc entries and, beneath a root,
// absolute paths outside it.
func (o *Opener) allowed(abs string) error {
	if shelterProc(abs) {
		return ErrShelterProc
	}
	if o.root != nil && !o.root.Under(abs) && !hostDevice(abs) {
		return o.root.Outside()
	}
	return nil
}

// hostDevice names the device files a confined session still reaches:
// they hold nothing of the host's.
func hostDevice(abs string) bool {
	switch abs {
	case os.DevNull, "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom":
		return true
	}
	return false
}

// named reports a host error with the name the script gave rather than
// the absolute path the opener used.
func named(err error, name string) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: le.Op, Path: name, Err: le.Err}
	}
	return err
}

func pathErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}
