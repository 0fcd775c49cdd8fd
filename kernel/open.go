package kernel

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"mvdan.cc/sh/v3/interp"
)

// open is the session's opener for redirections. It opens as mvdan/sh
// does, but an open that blocks (a FIFO with no other end) gives up when
// the call's context ends, so that `read x < fifo` cannot hold the
// session past its deadline; a file it creates gets the permissions the
// script's umask lets through.
func (s *Session) open(ctx context.Context, path string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(interp.HandlerCtx(ctx).Dir, path)
	}
	fi, err := os.Stat(path)
	if err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		return openFIFO(ctx, path, flag, perm)
	}
	if flag&os.O_CREATE == 0 || err == nil {
		return os.OpenFile(path, flag, perm)
	}
	mask, masked := sessionUmask(ctx)
	if !masked {
		return os.OpenFile(path, flag, perm)
	}
	// shelter's own umask applies too on create, so the file is chmodded
	// to exactly what the session's umask lets through; O_EXCL makes sure
	// it is the file this open created. One that appeared since the stat
	// (or a dangling symlink's target) is opened as it is.
	f, err := os.OpenFile(path, flag|os.O_EXCL, perm&^mask)
	if errors.Is(err, fs.ErrExist) && flag&os.O_EXCL == 0 {
		return os.OpenFile(path, flag, perm&^mask)
	}
	if err != nil {
		return nil, err
	}
	f.Chmod(perm &^ mask)
	return f, nil
}

// openFIFO opens a FIFO in a goroutine. When ctx ends first, it opens the
// other end itself, without blocking, so that the pending open returns,
// and closes both.
func openFIFO(ctx context.Context, path string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(path, flag, perm)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
	}
	other := os.O_WRONLY
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		other = os.O_RDONLY
	}
	if f, err := os.OpenFile(path, other|syscall.O_NONBLOCK, 0); err == nil {
		defer f.Close()
	}
	if o := <-done; o.f != nil {
		o.f.Close()
	}
	return nil, ctx.Err()
}
