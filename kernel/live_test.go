package kernel

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
)

// A live output on a pipe gets its own file at its first write, not
// before: a call that prints nothing opens nothing.
func TestLiveOutputOpensAtFirstWrite(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	var end endable
	end.start(context.Background(), 0)
	defer end.Cancel()
	st := &stream{live: pw}
	l := liveOutput(&end, st)
	if l.f != nil {
		t.Fatal("liveOutput opened a file before any write")
	}
	if _, err := st.live.Write([]byte("hi\n")); err != nil {
		t.Fatal(err)
	}
	if !l.own || l.f == pw {
		t.Fatalf("after a write: own %v, the embedder's file %v; want a copy of its own", l.own, l.f == pw)
	}
	l.Close()
	buf := make([]byte, 3)
	if _, err := io.ReadFull(pr, buf); err != nil || string(buf) != "hi\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	// The copy is closed; the embedder's file is not.
	if _, err := l.f.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("write to the closed copy: %v", err)
	}
	if _, err := pw.Write([]byte("x")); err != nil {
		t.Fatalf("the embedder's file: %v", err)
	}
}
