package kernel_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// spillSlack is what a capped file may hold past its cap: one write
// buffer, and the marker line in front.
const spillSlack = 64<<10 + 200

// A stream without end fills its spill file up to the cap and no further;
// the marker says how much of the front is gone.
func TestSpillFileIsCapped(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	s := newSession(t, kernel.Config{OutputLimit: 32 << 10, SpillCap: limit}, kernel.SessionOptions{})
	res := runWith(t, s, "cat /dev/zero", kernel.RunOptions{Timeout: 2 * time.Second})
	if res.ExitCode != 124 || res.SpillPath == "" {
		t.Fatalf("exit %d, spill %q, stderr %q", res.ExitCode, res.SpillPath, res.Stderr)
	}
	fi, err := os.Stat(res.SpillPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > limit+spillSlack {
		t.Errorf("spill file of %d bytes; cap %d", fi.Size(), limit)
	}
	m := regexp.MustCompile(`\[output truncated: (\d+) bytes total; full output at [^,]+, less its first (\d+) bytes`).FindStringSubmatch(res.Stdout)
	if m == nil {
		t.Fatalf("no marker with what was dropped in %q", strings.ToValidUTF8(strings.ReplaceAll(res.Stdout, "\x00", ""), "?"))
	}
	total, _ := strconv.ParseInt(m[1], 10, 64)
	dropped, _ := strconv.ParseInt(m[2], 10, 64)
	if total != res.StdoutBytes || dropped < total-limit-spillSlack || dropped > total-limit/2 {
		t.Errorf("marker says %d total, %d dropped; the stream had %d bytes, the file %d", total, dropped, res.StdoutBytes, fi.Size())
	}
}

// A job that writes without end keeps a log no larger than the cap, with
// a first line saying how much was dropped.
func TestJobLogIsCapped(t *testing.T) {
	const limit = 1 << 20
	s := newSession(t, kernel.Config{SpillCap: limit}, kernel.SessionOptions{})
	res := run(t, s, "yes &")
	if len(res.Jobs) != 1 {
		t.Fatalf("no job: %+v", res)
	}
	log := res.Jobs[0].Log
	eventually(t, "the log outgrows its cap twice", func() bool {
		b, err := os.ReadFile(log)
		return err == nil && strings.HasPrefix(string(b), "[log truncated: its first ") && firstDropped(b) > 2*limit
	})
	run(t, s, "kill %1; wait")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > limit+spillSlack {
		t.Errorf("log of %d bytes; cap %d", len(b), limit)
	}
	header, body, _ := strings.Cut(string(b), "\n")
	if !regexp.MustCompile(`^\[log truncated: its first \d+ bytes were dropped\]$`).MatchString(header) {
		t.Errorf("header %q", header)
	}
	if strings.Trim(body, "y\n") != "" {
		t.Errorf("the log holds more than yes wrote: %q", body[:min(len(body), 100)])
	}
}

func firstDropped(log []byte) int {
	m := regexp.MustCompile(`^\[log truncated: its first (\d+) bytes`).FindSubmatch(log)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// Truncation cuts at line boundaries, and each stream's spill file holds
// that stream exactly.
func TestSeqTruncatesAtLines(t *testing.T) {
	s := newSession(t, kernel.Config{OutputLimit: 32 << 10}, kernel.SessionOptions{})
	res := run(t, s, "seq 1 100000; seq 1 100000 >&2")
	if res.ExitCode != 0 || !res.Truncated {
		t.Fatalf("exit %d, truncated %v", res.ExitCode, res.Truncated)
	}
	if res.SpillPath == "" || res.StderrSpillPath == "" || res.SpillPath == res.StderrSpillPath {
		t.Fatalf("spill paths %q and %q", res.SpillPath, res.StderrSpillPath)
	}
	var want strings.Builder
	for i := 1; i <= 100000; i++ {
		fmt.Fprintln(&want, i)
	}
	for _, stream := range []struct{ name, text, spill string }{
		{"stdout", res.Stdout, res.SpillPath},
		{"stderr", res.Stderr, res.StderrSpillPath},
	} {
		head, tail, ok := strings.Cut(stream.text, "[output truncated: ")
		if !ok {
			t.Fatalf("%s: no marker", stream.name)
		}
		_, tail, _ = strings.Cut(tail, "]\n")
		if !strings.HasPrefix(head, "1\n2\n") || !strings.HasSuffix(tail, "99999\n100000\n") {
			t.Errorf("%s: head starts %q, tail ends %q", stream.name, head[:min(len(head), 8)], tail[max(0, len(tail)-16):])
		}
		// Whole lines of the sequence: the head is its start, the tail
		// its end from the start of a line.
		if !strings.HasPrefix(want.String(), head) || !strings.HasSuffix(head, "\n") {
			t.Errorf("%s: the head is not the sequence's first lines", stream.name)
		}
		if !strings.HasSuffix(want.String(), "\n"+tail) {
			t.Errorf("%s: the tail is not the sequence's last lines", stream.name)
		}
		b, err := os.ReadFile(stream.spill)
		if err != nil || string(b) != want.String() {
			t.Errorf("%s: spill file of %d bytes (%v); want the whole stream, %d bytes", stream.name, len(b), err, want.Len())
		}
	}
}
