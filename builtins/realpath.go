package builtins

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdRealpath = &command{
	name:     "realpath",
	usage:    "[OPTION]... FILE...",
	about:    "Print the resolved absolute file name; all but the last component must exist.",
	operands: "files",
	flags: []flag{
		{short: 'e', long: "canonicalize-existing", about: "all components of the path must exist"},
		{short: 'm', long: "canonicalize-missing", about: "no path components need exist or be a directory"},
		{short: 's', long: "strip", about: "don't expand symlinks"},
		{long: "no-symlinks", about: "don't expand symlinks"},
		{short: 'q', long: "quiet", about: "suppress most error messages"},
		{short: 'z', long: "zero", about: "end each output line with NUL, not newline"},
		{long: "relative-to", arg: "DIR", about: "print the resolved path relative to DIR"},
	},
	run: runRealpath,
}

var cmdReadlink = &command{
	name:     "readlink",
	usage:    "[OPTION]... FILE...",
	about:    "Print the value of a symbolic link or canonical file name.",
	operands: "files",
	flags: []flag{
		{short: 'f', long: "canonicalize", about: "canonicalize; all but the last component must exist"},
		{short: 'e', long: "canonicalize-existing", about: "canonicalize; all components must exist"},
		{short: 'm', long: "canonicalize-missing", about: "canonicalize; no component need exist"},
		{short: 'n', long: "no-newline", about: "do not output the trailing delimiter"},
		{short: 'q', long: "quiet", about: "suppress most error messages (the default)"},
		{short: 's', long: "silent", about: "suppress most error messages (the default)"},
		{short: 'v', long: "verbose", about: "report error messages"},
		{short: 'z', long: "zero", about: "end each output line with NUL, not newline"},
	},
	run: runReadlink,
}

// realpathMode says which components of a name must exist.
type realpathMode int

const (
	realpathAllButLast realpathMode = iota // realpath's default, readlink -f
	realpathExisting                       // -e
	realpathMissing                        // -m
)

func runRealpath(_ context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return realpathMissingOperand(c)
	}
	mode := realpathAllButLast
	switch a.last("canonicalize-existing", "canonicalize-missing") {
	case "canonicalize-existing":
		mode = realpathExisting
	case "canonicalize-missing":
		mode = realpathMissing
	}
	follow := !a.has("strip") && !a.has("no-symlinks")
	quiet := a.has("quiet")
	end := byte('\n')
	if a.has("zero") {
		end = 0
	}
	o := c.Opener()
	base := ""
	if a.has("relative-to") {
		dir := a.value("relative-to", "")
		p, err := realpathResolve(o, dir, mode, follow)
		if err != nil {
			if !quiet {
				failf(c, "%s", realpathErr(dir, err))
			}
			return status(1)
		}
		base = p
	}
	w := bufio.NewWriter(c.Stdout)
	defer w.Flush()
	st := 0
	for _, name := range a.operands {
		p, err := realpathResolve(o, name, mode, follow)
		if err != nil {
			if !quiet {
				w.Flush()
				failf(c, "%s", realpathErr(name, err))
			}
			st = 1
			continue
		}
		if base != "" {
			if r, err := filepath.Rel(base, p); err == nil {
				p = r
			}
		}
		w.WriteString(p)
		w.WriteByte(end)
	}
	if err := w.Flush(); err != nil {
		return status(1)
	}
	return status(st)
}

func runReadlink(_ context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return realpathMissingOperand(c)
	}
	canon, mode := false, realpathAllButLast
	switch a.last("canonicalize", "canonicalize-existing", "canonicalize-missing") {
	case "canonicalize":
		canon = true
	case "canonicalize-existing":
		canon, mode = true, realpathExisting
	case "canonicalize-missing":
		canon, mode = true, realpathMissing
	}
	verbose := a.last("quiet", "silent", "verbose") == "verbose"
	end := "\n"
	if a.has("zero") {
		end = "\x00"
	}
	if a.has("no-newline") {
		if len(a.operands) > 1 {
			failf(c, "ignoring --no-newline with multiple arguments")
		} else {
			end = ""
		}
	}
	o := c.Opener()
	w := bufio.NewWriter(c.Stdout)
	defer w.Flush()
	st := 0
	for _, name := range a.operands {
		var p string
		var err error
		if canon {
			p, err = realpathResolve(o, name, mode, true)
		} else {
			p, err = o.Readlink(name)
		}
		if err != nil {
			if verbose {
				w.Flush()
				failf(c, "%s", realpathErr(name, err))
			}
			st = 1
			continue
		}
		w.WriteString(p)
		w.WriteString(end)
	}
	if err := w.Flush(); err != nil {
		return status(1)
	}
	return status(st)
}

func realpathMissingOperand(c *kernel.Call) error {
	failf(c, "missing operand\nTry '%s --help' for more information.", c.Args[0])
	return status(1)
}

// realpathErr is "NAME: REASON" for a name the resolution failed on.
func realpathErr(name string, err error) string {
	return fsQuoteIfNeeded(name) + ": " + fsReason(err)
}

// realpathResolve makes name absolute and resolves its symbolic links one
// component at a time through the opener (so that "link/.." is the
// link's target's parent, as realpath(3) has it), requiring as much of it
// to exist as mode says. Without follow the name is only made absolute
// and cleaned, its existence checked as mode says.
func realpathResolve(o *kernel.Opener, name string, mode realpathMode, follow bool) (string, error) {
	if name == "" {
		return "", &fs.PathError{Op: "realpath", Path: name, Err: syscall.ENOENT}
	}
	if !follow {
		p := o.Abs(name)
		var err error
		switch mode {
		case realpathExisting:
			_, err = o.Stat(p)
		case realpathAllButLast:
			_, err = o.Stat(filepath.Dir(p))
		}
		if err != nil {
			return "", err
		}
		return p, realpathConfined(o, name, p)
	}
	// An absolute name under a confined root is walked from the root, as
	// the components above it are not the session's to look at.
	root, confined := o.Confined()
	restart := func(p string) (string, []string) {
		if confined && root != "/" && (p == root || strings.HasPrefix(p, root+"/")) {
			return root, strings.Split(p[len(root):], "/")
		}
		return "/", strings.Split(p, "/")
	}
	var cur string
	var todo []string
	if filepath.IsAbs(name) {
		cur, todo = restart(name)
	} else {
		cur, todo = o.Dir(), strings.Split(name, "/")
		if p, err := o.EvalSymlinks("."); err == nil {
			cur = p
		}
	}
	missing := false
	for hops := 0; len(todo) > 0; {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		if missing {
			cur = next
			continue
		}
		fi, err := o.Lstat(next)
		if err != nil {
			last := !realpathMore(todo)
			absent := errors.Is(err, fs.ErrNotExist) || mode == realpathMissing && errors.Is(err, syscall.ENOTDIR)
			if absent && (mode == realpathMissing || mode == realpathAllButLast && last) {
				missing = mode == realpathMissing
				cur = next
				continue
			}
			return "", realpathNamed(name, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > 40 {
				return "", &fs.PathError{Op: "realpath", Path: name, Err: syscall.ELOOP}
			}
			target, err := o.Readlink(next)
			if err != nil {
				return "", realpathNamed(name, err)
			}
			if filepath.IsAbs(target) {
				var rest []string
				cur, rest = restart(target)
				todo = append(rest, todo...)
			} else {
				todo = append(strings.Split(target, "/"), todo...)
			}
			continue
		}
		// More components, or a trailing slash, after a file.
		if !fi.IsDir() && len(todo) > 0 && mode != realpathMissing {
			return "", &fs.PathError{Op: "realpath", Path: name, Err: syscall.ENOTDIR}
		}
		cur = next
	}
	return cur, realpathConfined(o, name, cur)
}

// realpathMore reports whether components that name something remain.
func realpathMore(todo []string) bool {
	for _, p := range todo {
		if p != "" && p != "." {
			return true
		}
	}
	return false
}

// realpathNamed reports err under the name the script gave.
func realpathNamed(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return &fs.PathError{Op: "realpath", Path: name, Err: err}
}

// realpathConfined refuses a result outside the sandbox's root (reached
// by ".." above it), which no file access of the walk would have caught.
func realpathConfined(o *kernel.Opener, name, p string) error {
	root, ok := o.Confined()
	if !ok || root == "/" || p == root || strings.HasPrefix(p, root+"/") {
		return nil
	}
	return &fs.PathError{Op: "realpath", Path: name, Err: &kernel.OutsideRootError{Root: root}}
}
