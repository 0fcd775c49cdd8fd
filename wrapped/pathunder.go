package wrapped

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symlinks followed while resolving one path, as the
// kernel's own limit does.
const maxLinks = 40

var (
	errOutside  = errors.New("outside the directory")
	errTooDeep  = errors.New("too many levels of symbolic links")
	errRelative = errors.New("relative path without a working directory")
)

// checkedPath is a path_under word of a plan that passed the check: the
// argv index it fills, the root's real path it lies under, and the word
// as the agent wrote it, for refusals.
type checkedPath struct {
	argv        int
	root, value string
	dir         string // the directory as declared, or the working directory
	arg         *Positional
	scope       string
}

// refusal is the line for a checked path that fails when it is opened.
func (cp checkedPath) refusal(err error) error {
	if errors.Is(err, errOutside) {
		return &OutsidePathError{Scope: cp.scope, Name: cp.arg.name, Dir: cp.dir, Value: cp.value}
	}
	return &PathOpenError{Scope: cp.scope, Name: cp.arg.name, Value: cp.value, Err: err}
}

// resolveUnder resolves value (relative to dir when it is relative) and
// reports the absolute path the child should open and the real path of
// root, or an error when that path is not inside root. root itself may be
// a symlink.
func resolveUnder(dir, value, root string) (resolved, realRoot string, err error) {
	if root == "" {
		return "", "", errRelative // under a working directory not given
	}
	realRoot, err = resolvePath(root)
	if err != nil {
		return "", "", err
	}
	p := value
	if !isAbs(p) {
		if dir == "" {
			return "", "", errRelative
		}
		p = dir + "/" + p
	}
	resolved, err = resolvePath(p)
	if err != nil {
		return "", "", err
	}
	if !within(resolved, realRoot) {
		return "", "", errOutside
	}
	return resolved, realRoot, nil
}

// resolvePath resolves an absolute path component by component: existing
// components through their symlinks, missing ones lexically, each ..
// popping what was resolved so far. Unlike filepath.Clean followed by
// filepath.EvalSymlinks, link/.. means the parent of the link's target.
func resolvePath(p string) (string, error) {
	resolved := "/"
	rest := p
	links := 0
	for rest != "" {
		var c string
		c, rest = cutComponent(rest)
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			resolved = next
			continue
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink == 0:
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", errTooDeep
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if isAbs(target) {
			resolved = "/"
		}
		rest = target + "/" + rest
	}
	return resolved, nil
}

func cutComponent(p string) (string, string) {
	p = strings.TrimLeft(p, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, ""
}

// within compares component by component: /srv/app-evil is not within
// /srv/app; the directory itself is.
func within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

func isAbs(p string) bool { return strings.HasPrefix(p, "/") }
