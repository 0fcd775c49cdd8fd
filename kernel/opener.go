package kernel

import (
	"context"
	"io"
	"io/fs"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
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
//
// Its methods are os's, for names relative to its Dir: Open,
// OpenFile, Stat, Lstat, ReadDir, Access, Mkdir, MkdirAll, Remove,
// RemoveAll, Chmod, Chtimes, Readlink, Rename, Link, Symlink and
// EvalSymlinks; Abs makes a name absolute, and Confined names the root.
// The opener is package kernel/internal/fsroot's, whose documentation
// says each method's contract.
type Opener = fsroot.Opener

// ErrOutsideRoot is the error of a name that leads outside the sandbox's
// root; the error itself is an [*OutsideRootError].
var ErrOutsideRoot = fsroot.ErrOutsideRoot

// OutsideRootError is the refusal of a name outside the sandbox's root,
// which its field Root names.
type OutsideRootError = fsroot.OutsideRootError

// ErrShelterProc is the error of a name that leads into shelter's own
// /proc entries.
var ErrShelterProc = fsroot.ErrShelterProc

// ErrShelterDescriptor is the error of a name that leads to a pipe
// shelter itself holds open (another session's, a server's protocol)
// other than its standard streams, which stand for the call's own.
var ErrShelterDescriptor = fsroot.ErrShelterDescriptor

// ErrShelterDir is the error of a change to shelter's own directories;
// the error itself is a [*ShelterDirError].
var ErrShelterDir = fsroot.ErrShelterDir

// ShelterDirError is the refusal of a change, through the opener, to
// shelter's own files (docs/sandbox.md): the session's spill directory
// and what it holds (spill files, job logs), its $TMPDIR directory itself
// (what it holds is the script's), an ancestor of either, and in the
// sandbox ROOT/.shelter and everything in it but $TMPDIR's contents.
// Its field Dir is shelter's directory the change would reach, TmpDir
// the session's $TMPDIR, where changes are the script's.
type ShelterDirError = fsroot.ShelterDirError

// Opener returns the call's opener. The returned opener sees the call's
// working directory and streams as they are now.
func (c *Call) Opener() *Opener {
	streams := fsroot.Streams{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Extra: c.extraFiles}
	if c.session == nil {
		return fsroot.New(c.Dir, nil, nil, nil, streams, c.refusedPath, sessionUmask)
	}
	s := c.session
	return fsroot.New(c.Dir, s.root, &s.tmp, &s.spills, streams, c.refusedPath, sessionUmask)
}

// handlerOpener is the opener of the command an mvdan/sh handler serves:
// a value, which a handler keeps on its stack where it can, as one is
// made for every file the interpreter opens, stats or lists.
func (s *Session) handlerOpener(ctx context.Context) Opener {
	hc := interp.HandlerCtx(ctx)
	streams := fsroot.Streams{Stdin: hc.Stdin, Stdout: hc.Stdout, Stderr: hc.Stderr}
	return *fsroot.New(hc.Dir, s.root, &s.tmp, &s.spills, streams, nil, sessionUmask)
}

// rootOpener is an opener that only resolves names from dir beneath the
// session's root, for the checks the shell's builtins make (cd, pwd -P,
// source): it makes no directory and has no streams.
func (s *Session) rootOpener(dir string) *Opener {
	return fsroot.New(dir, s.root, nil, nil, fsroot.Streams{}, nil, nil)
}

// The session's handlers for mvdan/sh: every file the interpreter opens,
// stats, lists or checks goes through the opener.

func (s *Session) openHandler(ctx context.Context, path string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	o := s.handlerOpener(ctx)
	if rw, ok, err := s.fdOpen(ctx, &o, path, flag, perm); ok {
		return rw, err
	}
	return o.OpenFile(ctx, path, flag, perm)
}

func (s *Session) statHandler(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	o := s.handlerOpener(ctx)
	if follow {
		return o.Stat(name)
	}
	return o.Lstat(name)
}

func (s *Session) readDirHandler(ctx context.Context, name string) ([]fs.DirEntry, error) {
	o := s.handlerOpener(ctx)
	return o.ReadDir(name)
}

func (s *Session) accessHandler(ctx context.Context, name string, mode interp.AccessMode) error {
	o := s.handlerOpener(ctx)
	return o.Access(name, uint32(mode))
}
