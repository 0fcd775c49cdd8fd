package fsroot

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// OpenRegular reads what Open reads, in a session confined to a root and
// in one that is not: a regular file, a name that is a FIFO after all
// (opened as Open opens it, waiting for its writer), a directory, a link
// inside the root; and it refuses what Open refuses: a missing name, a
// link out of the root, a name outside it.
func TestOpenRegularAsOpen(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f.txt", filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	for _, confined := range []bool{false, true} {
		var r *Root
		if confined {
			r = root
		}
		o := New(dir, r, nil, nil, Streams{}, nil, nil)
		read := func(open func(context.Context, string) (io.ReadCloser, error), name string) (string, error) {
			f, err := open(ctx, name)
			if err != nil {
				return "", err
			}
			defer f.Close()
			b, err := io.ReadAll(f)
			return string(b), err
		}
		names := []string{"f.txt", "in", "missing", "out", filepath.Join(outside, "secret"), dir}
		for _, name := range names {
			want, wantErr := read(o.Open, name)
			got, gotErr := read(o.OpenRegular, name)
			if got != want || (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
				t.Errorf("confined %v: %s: OpenRegular read %q, %v; Open read %q, %v", confined, name, got, gotErr, want, wantErr)
			}
		}
		// A FIFO is opened as Open opens it: its reader waits for a
		// writer. OpenRegular's first open does not wait, and is closed
		// again (see its doc): a writer that met it loses what it wrote,
		// so the writer here writes a line to each reader it meets until
		// one has read it.
		fifo := filepath.Join(dir, "fifo")
		stop := make(chan struct{})
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			for {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				w.WriteString("through the fifo\n")
				w.Close()
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
		f, err := o.OpenRegular(ctx, "fifo")
		var line string
		if err == nil {
			line, err = bufio.NewReader(f).ReadString('\n')
			f.Close()
		}
		close(stop)
		// A writer waiting for its next reader gets one that goes.
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-wrote
			r.Close()
		}
		if err != nil || line != "through the fifo\n" {
			t.Errorf("confined %v: fifo: read %q, %v", confined, line, err)
		}
	}
}

// A regularFile reads to EOF, and reading or closing it after Close fails
// as an os.File's would.
func TestRegularFileClosed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := New(dir, nil, nil, nil, Streams{}, nil, nil)
	f, err := o.OpenRegular(context.Background(), "f")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.(*regularFile); !ok {
		t.Fatalf("a regular file opened as %T", f)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "x" {
		t.Fatalf("read %q, %v", b, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a read after Close: %v", err)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a second Close: %v", err)
	}
}
