package fsroot

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

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
