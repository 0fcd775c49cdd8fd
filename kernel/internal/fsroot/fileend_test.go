package fsroot

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestFileEndsInterruptsAndStaysSmall arms pipes on a call's context: a
// loop that opens and closes one at every turn keeps the list short, and
// the end interrupts the read pending on the file still open, and every
// read after it.
func TestFileEndsInterruptsAndStaysSmall(t *testing.T) {
	bc := newCallEnd()
	defer bc.cancel()
	for range 1000 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		Arm(bc, r)
		r.Close()
		w.Close()
	}
	bc.ends.mu.Lock()
	n := len(bc.ends.files)
	bc.ends.mu.Unlock()
	if n > 16 {
		t.Errorf("%d files listed after 1000 closed ones, want a few", n)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	Arm(bc, r)
	read := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 1))
		read <- err
	}()
	bc.cancel()
	select {
	case err := <-read:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("the pending read ended with %v, want os.ErrDeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pending read outlived its call's end")
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a read after the end: %v, want os.ErrDeadlineExceeded", err)
	}

	// A file armed after the end is interrupted at once.
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	defer r2.Close()
	Arm(bc, r2)
	if _, err := r2.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a file armed after the end: %v, want os.ErrDeadlineExceeded", err)
	}
}

// callEnd is the context of a call or job as the kernel makes it: it
// gives its Ends, whose end is its own.
type callEnd struct {
	context.Context
	cancel context.CancelFunc
	ends   Ends
}

func newCallEnd() *callEnd {
	c := new(callEnd)
	c.Context, c.cancel = context.WithCancel(context.Background())
	c.ends.Init(c)
	return c
}

func (c *callEnd) AfterFunc(f func()) (stop func() bool) { return context.AfterFunc(c.Context, f) }

func (c *callEnd) Value(key any) any {
	if key == (EndsKey{}) {
		return &c.ends
	}
	return c.Context.Value(key)
}
