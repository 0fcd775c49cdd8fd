package fsroot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
)

// An Opener is a call's view of the file system: every file the kernel
// and its builtins open, stat, list or create goes through one
// (docs/sandbox.md). Names are relative to the call's working directory.
//
// In every profile, /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N and
// /proc/self/fd/N are the call's own streams and descriptors (above 2,
// those the shell opened), and shelter's own /proc entries are refused. The file an open gives is checked too, whatever
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
