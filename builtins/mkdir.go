package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdMkdir = &command{
	name:     "mkdir",
	usage:    "[OPTION]... DIRECTORY...",
	about:    "Create the DIRECTORY(ies), if they do not already exist.",
	operands: "directories",
	flags: []flag{
		{short: 'm', long: "mode", arg: "MODE", about: "set file mode (as in chmod), not a=rwx - umask"},
		{short: 'p', long: "parents", about: "no error if existing, make parent directories as needed"},
		{short: 'v', long: "verbose", about: "print a message for each created directory"},
	},
	run: runMkdir,
}

func runMkdir(_ context.Context, c *kernel.Call, a *args) error {
	if len(a.operands) == 0 {
		return fsMissing(c, "missing operand")
	}
	umask := fsUmask()
	var mode uint32
	hasMode := a.has("mode")
	if hasMode {
		m, touched, ok := fsParseMode(a.value("mode", ""), 0o777, true, umask)
		// GNU makes the directory with the mode under the umask, and
		// fixes it afterwards only when a special bit is asked for and
		// a bit the mode names came out wrong.
		if made := (m &^ umask) & 0o1777; m&0o7000 != 0 && (m^made)&touched == 0 {
			m = made
		}
		if !ok {
			failf(c, "invalid mode %s", fsQuoteC(a.value("mode", "")))
			return status(1)
		}
		mode = m
	}
	o := c.Opener()
	verbose := a.has("verbose")
	w := bufio.NewWriter(c.Stdout)
	defer w.Flush()
	made := ""
	created := func(name string) {
		made = name
		if verbose {
			fmt.Fprintf(w, "mkdir: created directory %s\n", fsQuote(name))
		}
	}
	st := 0
	for _, name := range a.operands {
		if a.has("parents") {
			if err := mkdirParents(o, name, created); err != nil {
				w.Flush()
				failf(c, "%s", err)
				st = 1
				continue
			}
		} else {
			if err := o.Mkdir(name, 0o777); err != nil {
				w.Flush()
				failf(c, "cannot create directory %s: %s", fsQuoteC(name), fsReason(err))
				st = 1
				continue
			}
			created(name)
		}
		if hasMode && made == name {
			if err := o.Chmod(name, fsMode(mode)); err != nil {
				w.Flush()
				failf(c, "cannot set permissions of %s: %s", fsQuote(name), fsReason(err))
				st = 1
			}
		}
	}
	if w.Flush() != nil {
		return status(1)
	}
	return status(st)
}

// mkdirParents creates name and its missing parents, in order, reporting
// each it creates.
func mkdirParents(o *kernel.Opener, name string, created func(string)) error {
	var prefixes []string
	for i := 1; i <= len(name); i++ {
		if i == len(name) || name[i] == '/' && name[i-1] != '/' {
			prefixes = append(prefixes, name[:i])
		}
	}
	// From the deepest that exists on: in the sandbox the ancestors of an
	// absolute name under the root (/, /tmp) are outside it, and are
	// neither stat'ed nor made.
	start := 0
	for i := len(prefixes) - 1; i >= 0; i-- {
		if fi, err := o.Stat(prefixes[i]); err == nil && fi.IsDir() {
			start = i + 1
			break
		}
	}
	for _, p := range prefixes[start:] {
		fi, err := o.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("cannot create directory %s: %s", fsQuoteC(p), reason(syscall.ENOTDIR))
			}
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot create directory %s: %s", fsQuoteC(p), fsReason(err))
		}
		if err := o.Mkdir(p, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("cannot create directory %s: %s", fsQuoteC(p), fsReason(err))
		}
		created(p)
	}
	return nil
}
