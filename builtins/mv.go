package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdMv = &command{
	name:     "mv",
	usage:    "[OPTION]... SOURCE... DEST",
	about:    "Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.",
	operands: "sources and a destination",
	flags: []flag{
		{short: 'f', long: "force", about: "do not prompt before overwriting"},
		{short: 'n', long: "no-clobber", about: "do not overwrite an existing file"},
		{short: 't', long: "target-directory", arg: "DIRECTORY", about: "move all SOURCE arguments into DIRECTORY"},
		{short: 'T', long: "no-target-directory", about: "treat DEST as a normal file"},
		{short: 'v', long: "verbose", about: "explain what is being done"},
	},
	run: runMv,
}

func runMv(ctx context.Context, c *kernel.Call, a *args) error {
	plan, err := fsTargets(c, a, true)
	if err != nil {
		return err
	}
	r := newFsRun(ctx, c)
	defer r.w.Flush()
	noClobber := a.last("force", "no-clobber") == "no-clobber"
	for i, src := range plan.sources {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		dest := plan.dests[i]
		fi, err := r.o.Lstat(src)
		if err != nil {
			r.fail("cannot stat %s: %s", fsQuote(src), fsReason(err))
			continue
		}
		dfi, derr := r.o.Lstat(dest)
		if derr == nil {
			if noClobber {
				continue
			}
			if os.SameFile(fi, dfi) {
				r.fail("%s and %s are the same file", fsQuote(src), fsQuote(dest))
				continue
			}
			if fi.IsDir() && !dfi.IsDir() {
				r.fail("cannot overwrite non-directory %s with directory %s", fsQuote(dest), fsQuote(src))
				continue
			}
			if !fi.IsDir() && dfi.IsDir() {
				r.fail("cannot overwrite directory %s with non-directory", fsQuote(dest))
				continue
			}
		}
		if fi.IsDir() && fsInside(r.o, src, dest) {
			r.fail("cannot move %s to a subdirectory of itself, %s", fsQuote(src), fsQuote(dest))
			continue
		}
		err = r.o.Rename(src, dest)
		if errors.Is(err, syscall.EXDEV) {
			err = mvAcross(ctx, c, r.o, src, dest, fi)
			if err == errMvReported {
				r.st = 1
				continue
			}
		}
		if err != nil {
			r.fail("cannot move %s to %s: %s", fsQuote(src), fsQuote(dest), fsReason(err))
			continue
		}
		if a.has("verbose") {
			fmt.Fprintf(r.w, "renamed %s -> %s\n", fsQuote(src), fsQuote(dest))
		}
	}
	return r.status()
}

var errMvReported = errors.New("reported")

// mvAcross moves src to dest on another file system: a copy that keeps
// mode and times, then the removal of src.
func mvAcross(ctx context.Context, c *kernel.Call, o *kernel.Opener, src, dest string, fi fs.FileInfo) error {
	cp := &fsCopier{fsRun: &fsRun{ctx: ctx, c: c, o: o, w: bufio.NewWriter(io.Discard), name: "mv"},
		recursive: true, preserve: true}
	if _, err := o.Lstat(dest); err == nil {
		if err := o.RemoveAll(dest); err != nil {
			return err
		}
	}
	if !cp.copy(src, dest, fi) {
		return errMvReported
	}
	return o.RemoveAll(src)
}
