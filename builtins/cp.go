package builtins

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdCp = &command{
	name:     "cp",
	usage:    "[OPTION]... SOURCE... DEST",
	about:    "Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.",
	operands: "sources and a destination",
	flags: []flag{
		{short: 'a', long: "archive", about: "same as -dR --preserve=mode,timestamps"},
		{short: 'd', about: "same as --no-dereference"},
		{short: 'f', long: "force", about: "if a destination cannot be opened, remove it and try again"},
		{short: 'L', long: "dereference", about: "always follow symbolic links in SOURCE"},
		{short: 'n', long: "no-clobber", about: "do not overwrite an existing file"},
		{short: 'P', long: "no-dereference", about: "never follow symbolic links in SOURCE"},
		{short: 'p', long: "preserve", about: "preserve mode and timestamps"},
		{short: 'R', about: "copy directories recursively"},
		{short: 'r', long: "recursive", about: "copy directories recursively"},
		{short: 't', long: "target-directory", arg: "DIRECTORY", about: "copy all SOURCE arguments into DIRECTORY"},
		{short: 'T', long: "no-target-directory", about: "treat DEST as a normal file"},
		{short: 'v', long: "verbose", about: "explain what is being done"},
	},
	run: runCp,
}

// fsCopier copies files and trees through the opener.
type fsCopier struct {
	*fsRun    // named "cp", or "mv" when mv copies across devices
	recursive bool
	deref     bool // follow links below the command line
	derefArg  bool // follow links named on the command line
	preserve  bool
	noClobber bool
	force     bool
	verbose   bool
}

func runCp(ctx context.Context, c *kernel.Call, a *args) error {
	r := newFsRun(ctx, c)
	r.name = "cp"
	cp := &fsCopier{fsRun: r,
		recursive: a.has("recursive") || a.has("R") || a.has("archive"),
		preserve:  a.has("preserve") || a.has("archive"),
		noClobber: a.has("no-clobber"), force: a.has("force"), verbose: a.has("verbose")}
	defer cp.w.Flush()
	switch a.last("dereference", "no-dereference", "d", "archive") {
	case "dereference":
		cp.deref, cp.derefArg = true, true
	case "no-dereference", "d", "archive":
	default:
		cp.derefArg = !cp.recursive
	}
	plan, err := fsTargets(c, a, true)
	if err != nil {
		return err
	}
	for i, src := range plan.sources {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		cp.top(src, plan.dests[i])
	}
	return cp.status()
}

func (cp *fsCopier) stat(name string, follow bool) (fs.FileInfo, error) {
	if follow {
		return cp.o.Stat(name)
	}
	return cp.o.Lstat(name)
}

// top copies one command-line source.
func (cp *fsCopier) top(src, dest string) bool {
	fi, err := cp.stat(src, cp.derefArg)
	if err != nil {
		cp.fail("cannot stat %s: %s", fsQuote(src), fsReason(err))
		return false
	}
	if fi.IsDir() {
		if !cp.recursive {
			cp.fail("-r not specified; omitting directory %s", fsQuote(src))
			return false
		}
		if fsInside(cp.o, src, dest) {
			cp.fail("cannot copy a directory, %s, into itself, %s", fsQuote(src), fsQuote(dest))
			return false
		}
	}
	if dfi, err := cp.o.Stat(dest); err == nil && os.SameFile(fi, dfi) {
		cp.fail("%s and %s are the same file", fsQuote(src), fsQuote(dest))
		return false
	}
	return cp.copy(src, dest, fi)
}

// copy copies src, described by fi, to dest.
func (cp *fsCopier) copy(src, dest string, fi fs.FileInfo) bool {
	if cp.ctx.Err() != nil {
		return false
	}
	dfi, derr := cp.o.Lstat(dest)
	exists := derr == nil
	if exists && cp.noClobber {
		return true
	}
	switch {
	case fi.IsDir():
		if exists && !dfi.IsDir() {
			if fdi, err := cp.o.Stat(dest); err != nil || !fdi.IsDir() {
				cp.fail("cannot overwrite non-directory %s with directory %s", fsQuote(dest), fsQuote(src))
				return false
			}
		}
		return cp.copyDir(src, dest, fi, exists)
	case exists && dfi.IsDir():
		cp.fail("cannot overwrite directory %s with non-directory", fsQuote(dest))
		return false
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := cp.o.Readlink(src)
		if err != nil {
			cp.fail("cannot read symbolic link %s: %s", fsQuote(src), fsReason(err))
			return false
		}
		if exists {
			cp.o.Remove(dest)
		}
		if err := cp.o.Symlink(target, dest); err != nil {
			cp.fail("cannot create symbolic link %s: %s", fsQuote(dest), fsReason(err))
			return false
		}
		cp.report(src, dest)
		return true
	case !fi.Mode().IsRegular():
		cp.fail("cannot create special file %s: copying a %s is not supported", fsQuote(dest), fsTypeWord(fi.Mode()))
		return false
	}
	if !cp.copyFile(src, dest, fi, exists) {
		return false
	}
	cp.report(src, dest)
	return true
}

func (cp *fsCopier) report(src, dest string) {
	if cp.verbose {
		fmt.Fprintf(cp.w, "%s -> %s\n", fsQuote(src), fsQuote(dest))
	}
}

func (cp *fsCopier) copyFile(src, dest string, fi fs.FileInfo, exists bool) bool {
	if strings.HasSuffix(dest, "/") {
		cp.fail("cannot create regular file %s: %s", fsQuote(dest), reason(syscall.ENOTDIR))
		return false
	}
	in, err := cp.o.Open(cp.ctx, src)
	if err != nil {
		cp.fail("cannot open %s for reading: %s", fsQuote(src), fsReason(err))
		return false
	}
	defer in.Close()
	out, err := cp.o.OpenFile(cp.ctx, dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil && exists && cp.force {
		cp.o.Remove(dest)
		out, err = cp.o.OpenFile(cp.ctx, dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	}
	if err != nil {
		what := "cannot create regular file"
		if exists {
			what = "cannot open"
		}
		cp.fail("%s %s: %s", what, fsQuote(dest), fsReason(err))
		return false
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		cp.fail("error copying %s to %s: %s", fsQuote(src), fsQuote(dest), fsReason(err))
		return false
	}
	if err := out.Close(); err != nil {
		cp.fail("failed to close %s: %s", fsQuote(dest), fsReason(err))
		return false
	}
	return cp.attributes(dest, fi)
}

// attributes applies -p to dest: the source's mode and times.
func (cp *fsCopier) attributes(dest string, fi fs.FileInfo) bool {
	if !cp.preserve {
		return true
	}
	if err := cp.o.Chtimes(dest, fsAtime(fi), fi.ModTime()); err != nil {
		cp.fail("preserving times for %s: %s", fsQuote(dest), fsReason(err))
		return false
	}
	if err := cp.o.Chmod(dest, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
		cp.fail("preserving permissions for %s: %s", fsQuote(dest), fsReason(err))
		return false
	}
	return true
}

func (cp *fsCopier) copyDir(src, dest string, fi fs.FileInfo, exists bool) bool {
	if !exists {
		if err := cp.o.Mkdir(dest, 0o700); err != nil {
			cp.fail("cannot create directory %s: %s", fsQuote(dest), fsReason(err))
			return false
		}
	}
	cp.report(src, dest)
	entries, err := cp.o.ReadDir(src)
	if err != nil {
		cp.fail("cannot access %s: %s", fsQuote(src), fsReason(err))
		return false
	}
	ok := true
	for _, e := range entries {
		s, d := fsJoin(src, e.Name()), fsJoin(dest, e.Name())
		cfi, err := cp.stat(s, cp.deref)
		if err != nil {
			cp.fail("cannot stat %s: %s", fsQuote(s), fsReason(err))
			ok = false
			continue
		}
		if !cp.copy(s, d, cfi) {
			ok = false
		}
	}
	if !exists {
		mode := fsMode(fsUnixMode(fi.Mode()) &^ fsUmask())
		if cp.preserve {
			mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		}
		if err := cp.o.Chmod(dest, mode); err != nil {
			cp.fail("setting permissions for %s: %s", fsQuote(dest), fsReason(err))
			return false
		}
	}
	if cp.preserve {
		if err := cp.o.Chtimes(dest, fsAtime(fi), fi.ModTime()); err != nil {
			cp.fail("preserving times for %s: %s", fsQuote(dest), fsReason(err))
			return false
		}
	}
	return ok
}

// fsTypeWord names a file type as GNU's messages do.
func fsTypeWord(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character special file"
	case m&fs.ModeDevice != 0:
		return "block special file"
	}
	return "special file"
}
