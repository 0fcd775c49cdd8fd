package budget

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
)

// owner counts how often a Budget ended it.
type owner struct{ cancels int }

func (o *owner) Cancel() { o.cancels++ }

func newBudget(limit int64) (*Budget, *owner) {
	var b Budget
	o := new(owner)
	b.Init(limit, o, time.Now())
	return &b, o
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{
		12:            "12 bytes",
		1 << 10:       "1 KiB",
		1<<10 + 512:   "1 KiB",
		256 << 20:     "256 MiB",
		3 << 19:       "1.5 MiB",
		2 << 30:       "2 GiB",
		1<<30 + 1<<20: "1025 MiB",
		1<<30 + 1:     "1024.0 MiB",
	} {
		if got := ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestBoundCapture: a capture past the budget ends the call with a
// MemoryError, its NUL bytes dropped but counted.
func TestBoundCapture(t *testing.T) {
	b, o := newBudget(8)
	var sb strings.Builder
	w := Bound(&sb, b)
	if _, err := io.WriteString(w, "ab\x00c"); err != nil {
		t.Fatal(err)
	}
	if sb.String() != "abc" {
		t.Errorf("capture %q, want NUL dropped: %q", sb.String(), "abc")
	}
	_, err := io.WriteString(w, "defgh")
	if !IsMemoryError(err) || o.cancels != 1 || !errors.Is(b.EndedBy(), err) {
		t.Fatalf("err %v, %d cancels, ended by %v; want a MemoryError that ended the call once", err, o.cancels, b.EndedBy())
	}
	const want = "shelter: memory limit of 8 bytes exceeded by a command substitution's output (9 bytes); write large data to a file instead"
	if err.Error() != want {
		t.Errorf("error line\n%s\nwant\n%s", err, want)
	}
	if sb.Len() != 0 {
		t.Error("the capture outlived its budget")
	}
	var capture strings.Builder
	notCapture := struct{ io.Writer }{&capture}
	if Bound(notCapture, b) != io.Writer(notCapture) || Bound(&capture, nil) != io.Writer(&capture) {
		t.Error("Bound wrapped what is no capture, or a capture with no budget")
	}
}

func TestCat(t *testing.T) {
	var out, errOut strings.Builder
	if st := Cat(context.Background(), nil, strings.NewReader("a\x00b\n"), &out, &errOut); st != 0 || out.String() != "ab\n" {
		t.Errorf("Cat = %d, %q; want 0, %q", st, out.String(), "ab\n")
	}
	b, o := newBudget(2)
	out.Reset()
	if st := Cat(context.Background(), b, strings.NewReader("abc"), &out, &errOut); st != 1 || out.Len() != 0 || o.cancels != 1 {
		t.Errorf("Cat over budget = %d, %q, %d cancels; want 1, nothing, 1", st, out.String(), o.cancels)
	}
}

// TestCheckHeld: the variables are measured once a millisecond is past.
func TestCheckHeld(t *testing.T) {
	var b Budget
	o := new(owner)
	b.Init(10, o, time.Now().Add(-time.Hour))
	env := expand.ListEnviron("BIG=0123456789")
	err := b.CheckHeld(io.Discard, env)
	var m *MemoryError
	if !errors.As(err, &m) || m.By != VarsCause || m.Size != int64(len("BIG0123456789")) {
		t.Fatalf("CheckHeld = %v, want the variables' MemoryError of 13 bytes", err)
	}
	if err := b.CheckHeld(io.Discard, env); err != nil {
		t.Errorf("a second check within the millisecond measured again: %v", err)
	}
}

func TestDeepStack(t *testing.T) {
	b, _ := newBudget(-1)
	for range 10 * maxInterval {
		if b.DeepStack() {
			t.Fatal("a shallow stack is deep")
		}
	}
	var deep func(n int) bool
	deep = func(n int) bool {
		if n == 0 {
			return b.DeepStack()
		}
		return deep(n - 1)
	}
	b.count.Store(0) // count at the next command
	if !deep(MaxCallDepth * framesPerCall) {
		t.Error("a stack past MaxCallDepth levels is not deep")
	}
}
