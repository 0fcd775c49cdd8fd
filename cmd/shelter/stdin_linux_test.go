package main

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// blockingPipe is a pipe whose read end is in blocking mode, as a
// client's pipe to serve's stdin usually is (os.Pipe's are not).
func blockingPipe(t *testing.T) (r *os.File, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	if r.SetReadDeadline(time.Time{}) == nil {
		t.Fatal("the read end of a blocking pipe takes a deadline")
	}
	return r, w
}

func TestPollableStdin(t *testing.T) {
	stdin, w := blockingPipe(t)
	in := pollableStdin(stdin)
	defer in.Close()
	f, ok := in.(*os.File)
	if !ok || f == stdin {
		t.Fatalf("pollableStdin of a blocking pipe is %T %v, not a second open of it", in, in)
	}
	// The second open takes a deadline: closing it or End interrupts a
	// read pending on it.
	if err := f.SetReadDeadline(time.Now()); err != nil {
		t.Fatalf("SetReadDeadline: %v", err)
	}
	if _, err := f.Read(make([]byte, 1)); !os.IsTimeout(err) {
		t.Fatalf("a read past the deadline: %v, want a timeout", err)
	}
	f.SetReadDeadline(time.Time{})
	// It reads what the pipe carries, to its end.
	go func() {
		io.WriteString(w, "{}\n")
		w.Close()
	}()
	if b, err := io.ReadAll(f); err != nil || string(b) != "{}\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	// Stdin's own description stays blocking.
	rc, _ := stdin.SyscallConn()
	rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err != nil || flags&unix.O_NONBLOCK != 0 {
			t.Errorf("stdin's flags %#x, %v: non-blocking", flags, err)
		}
	})
}

// TestPollableStdinClosed opens a pipe whose writer is gone already:
// the open does not wait for one, and the input is at its end.
func TestPollableStdinClosed(t *testing.T) {
	stdin, w := blockingPipe(t)
	io.WriteString(w, "last\n")
	w.Close()
	in := pollableStdin(stdin)
	defer in.Close()
	if b, err := io.ReadAll(in); err != nil || string(b) != "last\n" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// TestPollableStdinFile leaves a regular file, which no poller waits on,
// as it is.
func TestPollableStdinFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if in := pollableStdin(f); in != io.ReadCloser(f) {
		t.Fatalf("pollableStdin of a file is %v", in)
	}
}
