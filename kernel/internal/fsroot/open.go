package fsroot

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Open opens name for reading.
func (o *Opener) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return o.OpenFile(ctx, name, os.O_RDONLY, 0)
}

// OpenFile opens name as os.OpenFile does. A file it creates gets the
// permissions the session's umask lets through. An open that would block
// (a FIFO with no other end) gives up when ctx ends, and a FIFO's reads
// and writes fail once ctx ends (with os.ErrDeadlineExceeded, on systems
// whose FIFOs have deadlines: Linux).
func (o *Opener) OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	rw, err := o.openChecked(ctx, name, flag, perm)
	return rw, o.note(err)
}

func (o *Opener) openChecked(ctx context.Context, name string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	abs, err := o.resolve(name)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	if f, ok, err := o.stream(abs, flag); ok {
		return f, pathErr("open", name, err)
	}
	if err := o.allowed(abs); err != nil {
		return nil, pathErr("open", name, err)
	}
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 && !hostDevice(abs) {
		if err := o.own(abs, changeFile); err != nil {
			return nil, pathErr("open", name, err)
		}
	}
	f, err := o.openFile(ctx, name, abs, flag, perm)
	var own *ownFile
	if errors.As(err, &own) {
		s, err := o.ownStream(own.held, flag)
		return s, pathErr("open", name, err)
	}
	if err != nil {
		return nil, err
	}
	if abs == os.DevNull {
		return f, nil
	}
	rw, err := o.vetOpened(f, flag)
	return rw, pathErr("open", name, err)
}

func (o *Opener) openFile(ctx context.Context, name, abs string, flag int, perm fs.FileMode) (*os.File, error) {
	if abs == os.DevNull {
		// The most opened file of all (`>/dev/null`) is no FIFO, and it
		// exists: the look before the open has nothing to find.
		return o.rawOpen(name, abs, flag, perm)
	}
	fi, err := o.stat(name, abs, true)
	if err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		f, err := o.openFIFO(ctx, name, abs, flag, perm)
		if err == nil {
			// Its reads and writes end with ctx, whoever makes them.
			Arm(ctx, f)
		}
		return f, err
	}
	if err == nil && flag&os.O_TRUNC != 0 && fi.Mode().IsRegular() {
		// Truncating is done by the open: shelter's own standard
		// streams are recognised before it (vetOpened sees the rest).
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			if held, any := ownStdio(st); any {
				return nil, &ownFile{held}
			}
		}
	}
	var mask fs.FileMode
	var masked bool
	if o.umask != nil {
		mask, masked = o.umask(ctx)
	}
	// What the look found is no FIFO nor device (or nothing, for a
	// create): the open may take the root's quicker way.
	plain := err == nil && (fi.Mode().IsRegular() || fi.IsDir()) || errors.Is(err, fs.ErrNotExist)
	if flag&os.O_CREATE == 0 || err == nil || !masked {
		return o.openRaw(name, abs, flag, perm, plain)
	}
	// shelter's own umask applies too on create, so the file is chmodded
	// to exactly what the session's umask lets through; O_EXCL makes sure
	// it is the file this open created. One that appeared since the stat
	// (or a dangling symlink's target) is opened as it is.
	f, err := o.openRaw(name, abs, flag|os.O_EXCL, perm&^mask, plain)
	if errors.Is(err, fs.ErrExist) && flag&os.O_EXCL == 0 {
		return o.rawOpen(name, abs, flag, perm&^mask)
	}
	if err != nil {
		return nil, err
	}
	f.Chmod(perm &^ mask)
	return f, nil
}

func (o *Opener) rawOpen(name, abs string, flag int, perm fs.FileMode) (*os.File, error) {
	return o.openRaw(name, abs, flag, perm, false)
}

// openRaw opens abs, beneath the root in the sandbox; plain says the name
// is known to be a regular file or a directory, or to be none yet: never a
// FIFO or a device.
func (o *Opener) openRaw(name, abs string, flag int, perm fs.FileMode, plain bool) (*os.File, error) {
	if o.root == nil || hostDevice(abs) {
		if plain && !hostDevice(abs) {
			return openHost(name, abs, flag, perm)
		}
		f, err := os.OpenFile(abs, flag, perm)
		return f, named(err, name)
	}
	rel, err := o.root.rel(name, abs)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	var f *os.File
	if plain {
		f, err = o.root.openPlain(rel, flag, perm)
	} else {
		f, err = o.root.r.OpenFile(rel, flag, perm)
	}
	return f, o.root.fix(err, "open", name)
}

// openFIFO opens a FIFO in a goroutine. When ctx ends first, it opens the
// other end itself, without blocking, so that the pending open returns,
// and closes both.
func (o *Opener) openFIFO(ctx context.Context, name, abs string, flag int, perm fs.FileMode) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := o.rawOpen(name, abs, flag, perm)
		done <- opened{f, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-ctx.Done():
	}
	other := os.O_WRONLY
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		other = os.O_RDONLY
	}
	if f, err := o.rawOpen(name, abs, other|syscall.O_NONBLOCK, 0); err == nil {
		defer f.Close()
	}
	if r := <-done; r.f != nil {
		r.f.Close()
	}
	return nil, ctx.Err()
}

// Stat returns the file's information, following symbolic links.
func (o *Opener) Stat(name string) (fs.FileInfo, error) {
	fi, err := o.statChecked("stat", name, true)
	return fi, o.note(err)
}

// Lstat returns the file's information; a symbolic link is described,
// not followed.
func (o *Opener) Lstat(name string) (fs.FileInfo, error) {
	fi, err := o.statChecked("lstat", name, false)
	return fi, o.note(err)
}

func (o *Opener) statChecked(op, name string, follow bool) (fs.FileInfo, error) {
	abs, err := o.resolve(name)
	if err != nil {
		return nil, pathErr(op, name, err)
	}
	if s, ok := o.streamFor(abs); ok {
		if f, isFile := s.(*os.File); isFile {
			return f.Stat()
		}
		if s == nil {
			return nil, pathErr(op, name, syscall.EBADF)
		}
		return streamInfo(filepath.Base(abs)), nil
	}
	if err := o.allowed(abs); err != nil {
		return nil, pathErr(op, name, err)
	}
	fi, err := o.stat(name, abs, follow)
	if err != nil {
		return nil, err
	}
	if onProc(fi) {
		if err := checkProcPath(abs, follow); err != nil {
			return nil, pathErr(op, name, err)
		}
	}
	return fi, nil
}

func (o *Opener) stat(name, abs string, follow bool) (fs.FileInfo, error) {
	if o.root == nil || hostDevice(abs) {
		var fi fs.FileInfo
		var err error
		if follow {
			fi, err = os.Stat(abs)
		} else {
			fi, err = os.Lstat(abs)
		}
		return fi, named(err, name)
	}
	rel, err := o.root.rel(name, abs)
	if err != nil {
		return nil, pathErr("stat", name, err)
	}
	fi, err := o.root.stat(rel, follow)
	return fi, o.root.fix(err, "stat", name)
}

// ReadDir lists a directory, sorted by name.
func (o *Opener) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := o.OpenFile(context.Background(), name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, ok := f.(*os.File)
	if !ok {
		return nil, pathErr("readdir", name, syscall.ENOTDIR)
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, pathErr("readdir", name, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// Access reports whether the file may be read (mode 4), written (2) or
// executed (1), as access(2) does.
func (o *Opener) Access(name string, mode uint32) error {
	return o.note(o.access(name, mode))
}

func (o *Opener) access(name string, mode uint32) error {
	abs, err := o.resolve(name)
	if err != nil {
		return pathErr("access", name, err)
	}
	if s, ok := o.streamFor(abs); ok {
		if s == nil {
			return pathErr("access", name, syscall.EBADF)
		}
		return nil
	}
	if err := o.allowed(abs); err != nil {
		return pathErr("access", name, err)
	}
	if o.root == nil || hostDevice(abs) {
		return pathErr("access", name, syscall.Access(abs, mode))
	}
	rel, err := o.root.rel(name, abs)
	if err != nil {
		return pathErr("access", name, err)
	}
	return o.root.fix(o.root.access(rel, mode), "access", name)
}
