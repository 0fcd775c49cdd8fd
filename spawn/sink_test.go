package spawn

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
)

func TestSinkBelowLimitKeepsEverything(t *testing.T) {
	s := NewSink(4, 4, t.TempDir(), "out")
	s.Write([]byte("abc"))
	s.Write([]byte("defgh"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := string(s.Bytes()); got != "abcdefgh" || s.Truncated() || s.SpillPath() != "" || s.Total() != 8 {
		t.Errorf("got %q truncated %v spill %q total %d", got, s.Truncated(), s.SpillPath(), s.Total())
	}
}

// TestSinkHeadTailAndSpill writes random chunks of random lines and
// checks the promises: the spill file is the whole stream; the head is its
// start up to a line end, the tail its end from a line start, each as long
// as the budget allows, cut inside a line only when no whole line fits,
// and then the marker says so.
func TestSinkHeadTailAndSpill(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		head, tail := rng.IntN(40), rng.IntN(40)
		if head+tail == 0 {
			head = 1
		}
		s := NewSink(head, tail, t.TempDir(), "out")
		var all bytes.Buffer
		lineLen := 1 + rng.IntN(30)
		for range rng.IntN(30) {
			chunk := make([]byte, rng.IntN(25))
			for i := range chunk {
				chunk[i] = 'a' + byte(rng.IntN(26))
				if rng.IntN(lineLen) == 0 {
					chunk[i] = '\n'
				}
			}
			s.Write(chunk)
			all.Write(chunk)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		want := all.Bytes()
		if s.String() != string(s.Bytes()) {
			t.Fatalf("round %d: String %q, Bytes %q", round, s.String(), s.Bytes())
		}
		if c, want := s.Capture(), (Capture{s.String(), s.Total(), s.Truncated(), s.SpillPath()}); c != want {
			t.Fatalf("round %d: Capture %+v, the accessors %+v", round, c, want)
		}
		if s.Total() != int64(len(want)) {
			t.Fatalf("round %d: total %d, want %d", round, s.Total(), len(want))
		}
		if len(want) <= head+tail {
			if s.Truncated() || !bytes.Equal(s.Bytes(), want) {
				t.Fatalf("round %d: under the limit: %q, want %q", round, s.Bytes(), want)
			}
			continue
		}
		spilled, err := os.ReadFile(s.SpillPath())
		if err != nil || !bytes.Equal(spilled, want) {
			t.Fatalf("round %d: spill %q (%v), want %q", round, spilled, err, want)
		}
		wantHead, headCut := wholeHead(want, head)
		wantTail, tailCut := wholeTail(want, tail)
		marker := fmt.Sprintf("[output truncated: %d bytes total; full output at %s", len(want), s.SpillPath())
		if headCut {
			marker += "; the head's last line is cut"
		}
		if tailCut {
			marker += "; the tail's first line is cut"
		}
		marker += "]\n"
		h, tl, ok := bytes.Cut(s.Bytes(), []byte(marker))
		if !ok {
			t.Fatalf("round %d: no marker %q in %q", round, marker, s.Bytes())
		}
		if len(wantHead) > 0 && wantHead[len(wantHead)-1] != '\n' {
			wantHead = append(bytes.Clone(wantHead), '\n')
		}
		if !bytes.Equal(h, wantHead) || !bytes.Equal(tl, wantTail) {
			t.Fatalf("round %d (head %d tail %d) of %q:\ngot  %q + %q\nwant %q + %q", round, head, tail, want, h, tl, wantHead, wantTail)
		}
	}
}

// wholeHead is the longest start of the stream within n bytes that ends a
// line, or its first n bytes, cut, when that is none.
func wholeHead(stream []byte, n int) ([]byte, bool) {
	for i := n; i > 0; i-- {
		if stream[i-1] == '\n' || i == n && stream[n] == '\n' {
			return stream[:i], false
		}
	}
	return stream[:n], n > 0
}

// wholeTail is the longest end of the stream within n bytes that starts a
// line, or its last n bytes, cut, when that is none but the final line
// end.
func wholeTail(stream []byte, n int) ([]byte, bool) {
	end := len(stream)
	for i := end - n; i < end; i++ {
		if stream[i-1] == '\n' {
			return stream[i:], false
		}
	}
	return stream[end-n:], n > 0
}

func TestSinkConcurrentWritersKeepWritesWhole(t *testing.T) {
	s := NewSink(1<<20, 1<<20, t.TempDir(), "out")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			line := bytes.Repeat([]byte{'a' + byte(w)}, 99)
			line = append(line, '\n')
			for range 500 {
				s.Write(line)
			}
		})
	}
	wg.Wait()
	s.Close()
	for i, l := range bytes.Split(bytes.TrimSuffix(s.Bytes(), []byte("\n")), []byte("\n")) {
		if len(l) != 99 || bytes.Count(l, l[:1]) != 99 {
			t.Fatalf("line %d damaged: %q", i, l)
		}
	}
}

func TestSinkDiscardsAfterClose(t *testing.T) {
	s := NewSink(10, 10, t.TempDir(), "out")
	s.Write([]byte("kept"))
	s.Close()
	if n, err := s.Write([]byte("late")); n != 4 || err != nil {
		t.Errorf("Write after Close: %d %v", n, err)
	}
	if string(s.Bytes()) != "kept" || s.Total() != 4 {
		t.Errorf("got %q total %d", s.Bytes(), s.Total())
	}
}

func TestSinkIsNotAReaderFrom(t *testing.T) {
	var w io.Writer = NewSink(1, 1, t.TempDir(), "out")
	if _, ok := w.(io.ReaderFrom); ok {
		t.Error("Sink implements io.ReaderFrom; os/exec would bypass its lock")
	}
}

// TestSinkSpillWith: a sink given a create function spills to the file it
// makes, never to one in its directory, and reports that file's name.
func TestSinkSpillWith(t *testing.T) {
	unused, held := t.TempDir(), t.TempDir()
	s := NewSink(4, 4, unused, "stdout")
	var asked string
	s.SpillWith(func(pattern string) (*os.File, error) {
		asked = pattern
		return os.CreateTemp(held, pattern)
	})
	s.Write([]byte("one\ntwo\nthree\n"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if asked != "stdout-*.out" {
		t.Errorf("create got %q; want stdout-*.out", asked)
	}
	if got, _ := os.ReadFile(s.SpillPath()); string(got) != "one\ntwo\nthree\n" {
		t.Errorf("spill file %s holds %q", s.SpillPath(), got)
	}
	if entries, _ := os.ReadDir(unused); len(entries) != 0 {
		t.Errorf("the sink's directory holds %v; want nothing", entries)
	}
}

// TestSinkSpillWithError: a create that fails is Close's error, and the
// marker says the spill failed.
func TestSinkSpillWithError(t *testing.T) {
	s := NewSink(4, 4, t.TempDir(), "stdout")
	refused := fmt.Errorf("refused")
	s.SpillWith(func(string) (*os.File, error) { return nil, refused })
	s.Write([]byte("one\ntwo\nthree\n"))
	if err := s.Close(); err != refused {
		t.Errorf("Close() = %v; want %v", err, refused)
	}
	if got := s.String(); !bytes.Contains([]byte(got), []byte("; no spill file could be written: refused;")) {
		t.Errorf("text %q names no failed spill", got)
	}
}
