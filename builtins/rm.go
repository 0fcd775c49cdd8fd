package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdRm = &command{
	name:     "rm",
	usage:    "[OPTION]... [FILE]...",
	about:    "Remove (unlink) the FILE(s).",
	operands: "files",
	flags: []flag{
		{short: 'f', long: "force", about: "ignore nonexistent files and arguments, never prompt"},
		{short: 'i', about: "prompt before every removal (refused: there is no terminal)"},
		{short: 'r', long: "recursive", about: "remove directories and their contents recursively"},
		{short: 'R', about: "same as -r"},
		{short: 'd', long: "dir", about: "remove empty directories"},
		{short: 'v', long: "verbose", about: "explain what is being done"},
	},
	run: runRm,
}

type rmState struct {
	*fsRun
	force, recursive, dir, v bool
}

func runRm(ctx context.Context, c *kernel.Call, a *args) error {
	if a.last("force", "i") == "i" {
		return &kernel.Refusal{Command: "rm", What: "flag '-i' prompts on a terminal and there is none", Allowed: []string{"-f/--force", "no prompt flag"}}
	}
	r := &rmState{fsRun: newFsRun(ctx, c),
		force: a.has("force"), recursive: a.has("recursive") || a.has("R"), dir: a.has("dir"), v: a.has("verbose")}
	defer r.w.Flush()
	if len(a.operands) == 0 {
		if r.force {
			return nil
		}
		return fsMissing(c, "missing operand")
	}
	for _, name := range a.operands {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if b := fsBase(name); b == "." || b == ".." {
			r.fail("refusing to remove '.' or '..' directory: skipping %s", fsQuote(name))
			continue
		}
		if r.recursive && r.o.Abs(name) == "/" {
			r.fail("it is dangerous to operate recursively on %s\nrm: use --no-preserve-root to override this failsafe", fsQuote(name))
			continue
		}
		fi, err := r.o.Lstat(name)
		if err != nil {
			if r.force && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			r.fail("cannot remove %s: %s", fsQuote(name), fsReason(err))
			continue
		}
		r.remove(name, fi)
	}
	return r.status()
}

// remove removes one name whose Lstat is fi, descending into a directory
// when -r was given. It reports whether the name is gone.
func (r *rmState) remove(name string, fi fs.FileInfo) bool {
	if fi.IsDir() {
		switch {
		case r.recursive:
			entries, err := r.o.ReadDir(name)
			if err != nil {
				r.fail("cannot remove %s: %s", fsQuote(name), fsReason(err))
				return false
			}
			ok := true
			for _, e := range entries {
				if r.ctx.Err() != nil {
					return false
				}
				child := fsJoin(name, e.Name())
				cfi, err := r.o.Lstat(child)
				if err != nil {
					r.fail("cannot remove %s: %s", fsQuote(child), fsReason(err))
					ok = false
					continue
				}
				if !r.remove(child, cfi) {
					ok = false
				}
			}
			if !ok {
				return false
			}
		case !r.dir:
			r.fail("cannot remove %s: %s", fsQuote(name), reason(syscall.EISDIR))
			return false
		}
	}
	if err := r.o.Remove(name); err != nil {
		r.fail("cannot remove %s: %s", fsQuote(name), fsReason(err))
		return false
	}
	if r.v {
		if fi.IsDir() {
			fmt.Fprintf(r.w, "removed directory %s\n", fsQuote(name))
		} else {
			fmt.Fprintf(r.w, "removed %s\n", fsQuote(name))
		}
	}
	return true
}

var cmdRmdir = &command{
	name:     "rmdir",
	usage:    "[OPTION]... DIRECTORY...",
	about:    "Remove the DIRECTORY(ies), if they are empty.",
	operands: "directories",
	flags: []flag{
		{long: "ignore-fail-on-non-empty", about: "ignore each failure that is solely because a directory is non-empty"},
		{short: 'p', long: "parents", about: "remove DIRECTORY and its ancestors"},
		{short: 'v', long: "verbose", about: "output a diagnostic for every directory processed"},
	},
	run: runRmdir,
}

func runRmdir(_ context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return fsMissing(c, "missing operand")
	}
	o := c.Opener()
	w := bufio.NewWriter(c.Stdout)
	defer w.Flush()
	ignore := a.has("ignore-fail-on-non-empty")
	st := 0
	removeOne := func(name string, parent bool) bool {
		if a.has("verbose") {
			fmt.Fprintf(w, "rmdir: removing directory, %s\n", fsQuote(name))
		}
		fi, err := o.Lstat(name)
		if err == nil && !fi.IsDir() {
			err = syscall.ENOTDIR
		}
		if err == nil {
			err = o.Remove(name)
		}
		if err == nil {
			return true
		}
		if ignore && (errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)) {
			return false
		}
		w.Flush()
		what := ""
		if parent {
			what = "directory "
		}
		failf(c, "failed to remove %s%s: %s", what, fsQuote(name), fsReason(err))
		st = 1
		return false
	}
	for _, name := range a.operands {
		if !removeOne(name, false) || !a.has("parents") {
			continue
		}
		p := strings.TrimRight(name, "/")
		for {
			i := strings.LastIndexByte(p, '/')
			if i <= 0 {
				break
			}
			p = strings.TrimRight(p[:i], "/")
			if p == "" || !removeOne(p, true) {
				break
			}
		}
	}
	if w.Flush() != nil {
		return status(1)
	}
	return status(st)
}
