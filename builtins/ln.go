package builtins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdLn = &command{
	name:     "ln",
	usage:    "[OPTION]... TARGET... [LINK_NAME | DIRECTORY]",
	about:    "Create a link to TARGET with the name LINK_NAME, or links in DIRECTORY; hard links by default.",
	operands: "targets and a link name or directory",
	flags: []flag{
		{short: 'f', long: "force", about: "remove existing destination files"},
		{short: 'n', long: "no-dereference", about: "treat LINK_NAME as a normal file if it is a symbolic link to a directory"},
		{short: 'r', long: "relative", about: "with -s, create links relative to link location"},
		{short: 's', long: "symbolic", about: "make symbolic links instead of hard links"},
		{short: 't', long: "target-directory", arg: "DIRECTORY", about: "create the links in DIRECTORY"},
		{short: 'T', long: "no-target-directory", about: "treat LINK_NAME as a normal file always"},
		{short: 'v', long: "verbose", about: "print name of each linked file"},
	},
	run: runLn,
}

func runLn(ctx context.Context, c *kernel.Call, a *args) error {
	symbolic := a.has("symbolic")
	if a.has("relative") && !symbolic {
		failf(c, "cannot do --relative without --symbolic")
		return status(1)
	}
	plan, err := fsTargets(c, a, !a.has("no-dereference"))
	if err != nil {
		return err
	}
	r := newFsRun(ctx, c)
	defer r.w.Flush()
	for i, target := range plan.sources {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		link := plan.dests[i]
		if !symbolic {
			if _, err := r.o.Lstat(target); err != nil {
				r.fail("failed to access %s: %s", fsQuote(target), fsReason(err))
				continue
			}
		}
		if a.has("relative") {
			target = lnRelative(r.o, target, link)
		}
		if a.has("force") {
			if lfi, err := r.o.Lstat(link); err == nil {
				if lfi.IsDir() {
					r.fail("%s: cannot overwrite directory", fsQuote(link))
					continue
				}
				if tfi, err := r.o.Lstat(target); !symbolic && err == nil && os.SameFile(tfi, lfi) {
					r.fail("%s and %s are the same file", fsQuote(target), fsQuote(link))
					continue
				}
				r.o.Remove(link)
			}
		}
		if symbolic {
			err = r.o.Symlink(target, link)
		} else {
			err = r.o.Link(target, link)
		}
		if err != nil {
			if symbolic {
				r.fail("failed to create symbolic link %s: %s", fsQuote(link), fsReason(err))
			} else {
				r.fail("failed to create hard link %s: %s", fsQuote(link), fsReason(err))
			}
			continue
		}
		if a.has("verbose") {
			arrow := "=>"
			if symbolic {
				arrow = "->"
			}
			fmt.Fprintf(r.w, "%s %s %s\n", fsQuote(link), arrow, fsQuote(target))
		}
	}
	return r.status()
}

// lnRelative is target as a path relative to the directory link is made
// in, both resolved as far as they exist (ln -r).
func lnRelative(o *kernel.Opener, target, link string) string {
	t, err := realpathResolve(o, target, realpathMissing, true)
	if err != nil {
		return target
	}
	dir, err := realpathResolve(o, filepath.Dir(o.Abs(link)), realpathMissing, true)
	if err != nil {
		return target
	}
	if r, err := filepath.Rel(dir, t); err == nil {
		return r
	}
	return target
}
