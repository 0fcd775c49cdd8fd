package fsroot

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// withStdio makes fds shelter's standard descriptors for the opener
// until the test ends.
func withStdio(t *testing.T, fds [3]int) {
	old := stdioFDs.Swap(&fds)
	t.Cleanup(func() { stdioFDs.Store(old) })
}

func procFD(f *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }

// A name that reaches shelter's own stdin, stdout or stderr by a route
// the opener does not know by name (a symbolic link to /proc/self/fd/N,
// a link to /dev/fd) lands on the call's stream of that number, as
// /proc/self/fd/N does: a forged line never reaches shelter's stdout,
// nothing is written into its stdin, and its stdout is never read.
func TestOpenerOwnStdio(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the routes go through /proc")
	}
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "shelter.log")
	if err := os.WriteFile(logPath, []byte("kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logF, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer logF.Close()
	withStdio(t, [3]int{int(inR.Fd()), int(outW.Fd()), int(logF.Fd())})
	for name, target := range map[string]string{
		"in": procFD(inR), "out": procFD(outW), "err": procFD(logF), "fd": "/dev/fd",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	var callOut, callErr strings.Builder
	o := New(dir, nil, nil, nil, Streams{Stdin: strings.NewReader("the call's input\n"), Stdout: &callOut, Stderr: &callErr}, nil, nil)
	ctx := context.Background()
	write := os.O_WRONLY | os.O_CREATE | os.O_TRUNC

	for _, tc := range []struct {
		name string
		flag int
		data string // written, or read when flag is O_RDONLY
		err  error
	}{
		{"out", write, "forged out\n", nil},
		{"fd/" + strconv.Itoa(int(outW.Fd())), write, "forged fd\n", nil},
		{"out", os.O_WRONLY | os.O_APPEND, "appended\n", nil},
		{"out", os.O_RDONLY, "", syscall.EBADF}, // the client's responses
		{"in", write, "", syscall.EBADF},        // a request injected
		{"in", os.O_RDWR, "", syscall.EBADF},
		{"in", os.O_RDONLY, "the call's input\n", nil},
		{"err", write, "forged err\n", nil},
		{logPath, os.O_WRONLY | os.O_TRUNC, "forged log\n", nil},
		{logPath, os.O_RDONLY, "kept\n", nil}, // a regular file is read as it is
	} {
		f, err := o.OpenFile(ctx, tc.name, tc.flag, 0o600)
		if !errors.Is(err, tc.err) {
			t.Errorf("OpenFile(%s, %#o): %v, want %v", tc.name, tc.flag, err, tc.err)
		}
		if err != nil {
			if pe := new(os.PathError); !errors.As(err, &pe) || pe.Path != tc.name {
				t.Errorf("OpenFile(%s): the error %v does not name it", tc.name, err)
			}
			continue
		}
		if tc.flag == os.O_RDONLY {
			b, _ := io.ReadAll(f)
			if string(b) != tc.data {
				t.Errorf("OpenFile(%s) read %q, want %q", tc.name, b, tc.data)
			}
		} else if _, err := io.WriteString(f, tc.data); err != nil {
			t.Errorf("write to %s: %v", tc.name, err)
		}
		f.Close()
	}
	if want := "forged out\nforged fd\nappended\n"; callOut.String() != want {
		t.Errorf("the call's stdout %q, want %q", callOut.String(), want)
	}
	if want := "forged err\nforged log\n"; callErr.String() != want {
		t.Errorf("the call's stderr %q, want %q", callErr.String(), want)
	}
	outW.Close()
	if b, _ := io.ReadAll(outR); len(b) != 0 {
		t.Errorf("shelter's stdout got %q", b)
	}
	inW.Close()
	if b, _ := io.ReadAll(inR); len(b) != 0 {
		t.Errorf("shelter's stdin got %q", b)
	}
	if b, _ := os.ReadFile(logPath); string(b) != "kept\n" {
		t.Errorf("shelter's stderr file holds %q, want it untouched", b)
	}
}

// /dev/null and its kind hold nothing: when shelter's own stdin or
// stdout is one (a daemon's), `< /dev/null` and `> /dev/null` stay what
// they are, not the call's streams.
func TestOpenerInertStdio(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	withStdio(t, [3]int{int(null.Fd()), int(null.Fd()), int(null.Fd())})
	var callOut strings.Builder
	o := New(t.TempDir(), nil, nil, nil, Streams{Stdin: strings.NewReader("input"), Stdout: &callOut}, nil, nil)
	for _, name := range []string{os.DevNull, "/dev/../dev/null"} {
		f, err := o.OpenFile(context.Background(), name, os.O_RDWR, 0)
		if err != nil {
			t.Fatalf("open %s: %v", name, err)
		}
		io.WriteString(f, "dropped")
		if b, _ := io.ReadAll(f); len(b) != 0 {
			t.Errorf("%s read %q", name, b)
		}
		f.Close()
	}
	if callOut.Len() != 0 {
		t.Errorf("the call's stdout got %q", callOut.String())
	}
}

// A pipe shelter holds beyond its standard streams (another session's,
// a protocol's) is refused by every name that reaches it; the call's own
// stream, when it is a pipe, and a named FIFO shelter holds open (a
// process substitution's) open as usual.
func TestOpenerRefusesHeldPipes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the routes go through /proc")
	}
	r, w := pipe(t)
	mineR, mineW := pipe(t)
	dir := t.TempDir()
	for name, target := range map[string]string{"w": procFD(w), "r": procFD(r), "fd": "/proc/self/fd", "mine": procFD(mineW)} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	held, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	o := New(dir, nil, nil, nil, Streams{Stdout: mineW}, nil, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		flag int
	}{
		{"w", os.O_WRONLY},
		{"r", os.O_RDONLY},
		{"fd/" + strconv.Itoa(int(w.Fd())), os.O_WRONLY | os.O_TRUNC},
		{"fd/../fd/" + strconv.Itoa(int(r.Fd())), os.O_RDONLY},
	} {
		f, err := o.OpenFile(ctx, tc.name, tc.flag, 0)
		if err == nil {
			f.Close()
		}
		want := "open " + tc.name + ": shelter's own descriptors are not open to a session"
		if !errors.Is(err, ErrShelterDescriptor) || err.Error() != want {
			t.Errorf("OpenFile(%s): %v, want %q", tc.name, err, want)
		}
	}
	f, err := o.OpenFile(ctx, "fifo", os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("the named FIFO: %v", err)
	}
	f.Close()
	f, err = o.OpenFile(ctx, "mine", os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("the call's own stdout: %v", err)
	}
	io.WriteString(f, "mine\n")
	f.Close()
	mineW.Close()
	if b, _ := io.ReadAll(mineR); string(b) != "mine\n" {
		t.Errorf("the call's own stdout got %q", b)
	}
	w.Close()
	if b, _ := io.ReadAll(r); len(b) != 0 {
		t.Errorf("the held pipe got %q", b)
	}
}

func pipe(t *testing.T) (r, w *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}
