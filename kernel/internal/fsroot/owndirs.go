package fsroot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrShelterDir is the error of a change to shelter's own directories;
// the error itself is a [*ShelterDirError].
var ErrShelterDir = errors.New("shelter's own directory")

// ShelterDirError is the refusal of a change, through the opener, to
// shelter's own files (docs/sandbox.md): the session's spill directory
// and what it holds (spill files, job logs), its $TMPDIR directory itself
// (what it holds is the script's), an ancestor of either, and in the
// sandbox ROOT/.shelter and everything in it but $TMPDIR's contents.
type ShelterDirError struct {
	Dir    string // shelter's directory the change would reach
	TmpDir string // the session's $TMPDIR, where changes are the script's
}

func (e *ShelterDirError) Error() string {
	return fmt.Sprintf("%s is shelter's own, which a session reads but does not change; allowed: changes under $TMPDIR (%s)", e.Dir, e.TmpDir)
}

func (e *ShelterDirError) Is(target error) bool { return target == ErrShelterDir }

// How a change treats the name it is given.
type change int

const (
	changeFile    change = iota // follows a link at the last element: open, chmod
	changeEntry                 // acts on the entry itself: mkdir, link, symlink
	changeSubtree               // takes the entry and all below it: remove, rename
)

// opChange is how the opener's operation op treats its names.
func opChange(op string) change {
	switch op {
	case "chmod", "chtimes":
		return changeFile
	case "remove", "rename":
		return changeSubtree
	}
	return changeEntry
}

// own refuses a change at abs, a clean absolute name, that would reach
// shelter's own directories, by its name and, once the session made one
// of them, by the name its links lead to. A change of a subtree that
// holds one of them (an ancestor) is refused too.
//
// The check is by name: a link swapped between it and the change can
// slip a change past it. What makes shelter safe is that it opens its own
// files by descriptor and follows no link there (sessiondir.go); this
// keeps a session from moving, replacing or rewriting them by mistake or
// on purpose through the builtins.
func (o *Opener) own(abs string, how change) error {
	if o.spills == nil || o.tmp == nil {
		return nil
	}
	if dir := o.ownDir(abs, how); dir != "" {
		return &ShelterDirError{Dir: dir, TmpDir: o.tmp.path}
	}
	if !o.spills.made.Load() && !o.tmp.made.Load() {
		return nil
	}
	if real := o.real(abs, how == changeFile); real != abs {
		if dir := o.ownDir(real, how); dir != "" {
			return &ShelterDirError{Dir: dir, TmpDir: o.tmp.path}
		}
	}
	return nil
}

// ownDir is shelter's directory a change at p reaches, or "".
func (o *Opener) ownDir(p string, how change) string {
	tmp, spills := o.tmp.path, o.spills.path
	switch {
	case Within(p, spills):
		return spills
	case p == tmp:
		return tmp
	case Within(p, tmp):
		return ""
	}
	if o.root != nil {
		if state := filepath.Join(o.root.dir, stateDir); Within(p, state) {
			return state
		}
	}
	if how == changeSubtree && (Within(spills, p) || Within(tmp, p)) {
		return p // an ancestor: removing or renaming it takes shelter's along
	}
	return ""
}

// Within reports whether p, a clean path, is dir or lies beneath it.
func Within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir) && (dir == "/" || p[len(dir)] == '/')
}

// real resolves the links of abs as far as they exist, beneath the root
// in the sandbox; what does not exist is taken as written. The last
// element is resolved only when follow.
func (o *Opener) real(abs string, follow bool) string {
	lstat, readlink := os.Lstat, os.Readlink
	if o.root != nil {
		c := o.root
		lstat = func(p string) (fs.FileInfo, error) {
			rel, err := c.rel(p, p)
			if err != nil {
				return nil, err
			}
			return c.r.Lstat(rel)
		}
		readlink = func(p string) (string, error) {
			rel, err := c.rel(p, p)
			if err != nil {
				return "", err
			}
			return c.r.Readlink(rel)
		}
	}
	done := "/"
	todo := strings.Split(abs, "/")
	for hops := 0; len(todo) > 0; {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		p := filepath.Join(done, part)
		if len(todo) == 0 && !follow {
			return p
		}
		fi, err := lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 || hops >= 40 {
			done = p
			continue
		}
		hops++
		target, err := readlink(p)
		if err != nil {
			done = p
			continue
		}
		if filepath.IsAbs(target) {
			done = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return done
}
