package spawn_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shelter-sh/shelter/spawn"
)

// seqOutput is what seq 1 n prints.
func seqOutput(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func runInto(t *testing.T, sink *spawn.Sink, script string) {
	t.Helper()
	c := shCmd(t, script)
	c.Stdout = sink
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Fatalf("%s: Run = %d, %v", script, status, err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
}

// Head and tail of seq's output hold whole numbers only, in sequence.
func TestSinkCutsAtLines(t *testing.T) {
	const n = 100000
	s := spawn.NewSink(16<<10, 16<<10, t.TempDir(), "out")
	runInto(t, s, "seq 1 "+strconv.Itoa(n))
	want := seqOutput(n)
	spilled, err := os.ReadFile(s.SpillPath())
	if err != nil || !bytes.Equal(spilled, want) {
		t.Fatalf("spill holds %d bytes (%v), want seq's %d", len(spilled), err, len(want))
	}
	marker := fmt.Sprintf("[output truncated: %d bytes total; full output at %s]\n", len(want), s.SpillPath())
	head, tail, ok := strings.Cut(string(s.Bytes()), marker)
	if !ok {
		t.Fatalf("no marker %q in %d bytes", marker, len(s.Bytes()))
	}
	check := func(part string, first, last int) {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(part, "\n"), "\n")
		for i, l := range lines {
			if l != strconv.Itoa(first+i) {
				t.Fatalf("line %d is %q, want %d", i, l, first+i)
			}
		}
		if last > 0 && first+len(lines)-1 != last {
			t.Fatalf("ends at %s, want %d", lines[len(lines)-1], last)
		}
	}
	check(head, 1, 0)
	first, _ := strconv.Atoi(tail[:strings.IndexByte(tail, '\n')])
	check(tail, first, n)
	if len(head) > 16<<10 || len(tail) > 16<<10 || len(head) < 16<<10-7 || len(tail) < 16<<10-7 {
		t.Errorf("head %d, tail %d bytes; want each within a line of 16 KiB", len(head), len(tail))
	}
}

// A line longer than head and tail is cut, and the marker says so.
func TestSinkCutsLongLine(t *testing.T) {
	s := spawn.NewSink(10, 10, t.TempDir(), "out")
	s.Write([]byte(strings.Repeat("x", 100)))
	s.Close()
	want := fmt.Sprintf("xxxxxxxxxx\n[output truncated: 100 bytes total; full output at %s; the head's last line is cut; the tail's first line is cut]\nxxxxxxxxxx", s.SpillPath())
	if got := string(s.Bytes()); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A stream far past the spill cap leaves a file of its last part, no
// larger than the cap and one buffer, and the marker says what was
// dropped.
func TestSinkSpillCap(t *testing.T) {
	const limit = 100 << 10
	s := new(spawn.Sink)
	s.Init(1<<10, 1<<10, t.TempDir(), "out", limit)
	runInto(t, s, "head -c 20000000 /dev/zero")
	info, err := os.Stat(s.SpillPath())
	if err != nil {
		t.Fatal(err)
	}
	const buffer = 64 << 10
	if info.Size() > limit+buffer || info.Size() < limit/2 {
		t.Errorf("spill file has %d bytes, want between %d and %d", info.Size(), limit/2, limit+buffer)
	}
	dropped := s.SpillDropped()
	if dropped+info.Size() != 20000000 {
		t.Errorf("dropped %d + kept %d != 20000000", dropped, info.Size())
	}
	marker := fmt.Sprintf("[output truncated: 20000000 bytes total; full output at %s, less its first %d bytes; the head's last line is cut; the tail's first line is cut]\n", s.SpillPath(), dropped)
	if !bytes.Contains(s.Bytes(), []byte(marker)) {
		t.Errorf("no marker %q in %q", marker, s.Bytes())
	}
}

// The spill file holds exactly the stream's last part, whatever the
// sizes of the writes.
func TestSinkSpillCapKeepsTheEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	want := seqOutput(200000)
	for round := range 30 {
		limit := int64(1 + rng.IntN(300<<10))
		s := new(spawn.Sink)
		s.Init(rng.IntN(100), rng.IntN(100), t.TempDir(), "out", limit)
		for rest := want; len(rest) > 0; {
			n := min(len(rest), rng.IntN(int(limit)*2+2))
			s.Write(rest[:n])
			rest = rest[n:]
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(s.SpillPath())
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(got)) > limit || int64(len(got))+s.SpillDropped() != int64(len(want)) || !bytes.HasSuffix(want, got) {
			t.Fatalf("round %d (cap %d): file of %d bytes, %d dropped; want the last part of %d bytes", round, limit, len(got), s.SpillDropped(), len(want))
		}
	}
}

// A log keeps the end of what concurrent writers wrote, whole writes,
// with a first line saying what was dropped.
func TestLogCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.log")
	const limit = 50 << 10
	log, err := spawn.NewLog(path, limit)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				fmt.Fprintf(log, "writer %d line %06d\n", w, i)
			}
		})
	}
	wg.Wait()
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header := fmt.Sprintf("[log truncated: its first %d bytes were dropped]\n", log.Dropped())
	body, ok := bytes.CutPrefix(got, []byte(header))
	if !ok || log.Dropped() == 0 {
		t.Fatalf("log starts %.80q, want %q", got, header)
	}
	if int64(len(body)) > limit || int64(len(body))+log.Dropped() != log.Total() || log.Total() != 8*2000*int64(len("writer 0 line 000000\n")) {
		t.Errorf("log holds %d bytes, dropped %d of %d", len(body), log.Dropped(), log.Total())
	}
	// The front may start inside a line; every line after is whole.
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	for _, l := range lines[1:] {
		var w, i int
		if n, _ := fmt.Sscanf(l, "writer %d line %06d", &w, &i); n != 2 {
			t.Fatalf("line damaged: %q", l)
		}
	}
	if !strings.Contains(string(body), "line 001999\n") {
		t.Errorf("the log lost its end: %q", body[len(body)-100:])
	}
}

// TestNewLogFile: a Log over a file the caller made writes to it, keeps
// its cap and closes it.
func TestNewLogFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "job-*.log")
	if err != nil {
		t.Fatal(err)
	}
	log := spawn.NewLogFile(f, 8)
	log.Write([]byte("0123456789"))
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(f.Name())
	if want := "[log truncated: its first 2 bytes were dropped]\n23456789"; string(got) != want || log.Name() != f.Name() {
		t.Errorf("log %s holds %q; want %q", log.Name(), got, want)
	}
	if _, err := f.Write([]byte("x")); err == nil {
		t.Error("the file is still open after Close")
	}
}

// TestNewLogFollowsNoLink: a link at the log's name is an error, and the
// file it points to is left alone.
func TestNewLogFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "job.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if log, err := spawn.NewLog(link, 0); err == nil {
		log.Close()
		t.Fatal("NewLog followed the link")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("target holds %q", b)
	}
}
