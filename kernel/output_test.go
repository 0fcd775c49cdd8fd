package kernel_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/internal/testpar"
	"github.com/shelter-sh/shelter/kernel"
)

func TestHugeOutputSpillsInBoundedMemory(t *testing.T) {
	s := newSession(t, kernel.Config{OutputLimit: 32 << 10}, kernel.SessionOptions{})
	const total = 100_000_000

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	res := run(t, s, fmt.Sprintf("yes | head -c %d", total))
	close(stop)
	<-sampled

	if res.ExitCode != 0 || !res.Truncated || res.StdoutBytes != total {
		t.Fatalf("exit %d truncated %v stdout_bytes %d", res.ExitCode, res.Truncated, res.StdoutBytes)
	}
	marker := fmt.Sprintf("[output truncated: %d bytes total; full output at %s]\n", total, res.SpillPath)
	head, tail, ok := strings.Cut(res.Stdout, marker)
	if !ok {
		t.Fatalf("no marker %q in the first bytes %q", marker, res.Stdout[:min(len(res.Stdout), 200)])
	}
	if len(head) > 16<<10 || len(tail) > 16<<10 {
		t.Errorf("head %d bytes, tail %d bytes; want at most 16 KiB each", len(head), len(tail))
	}
	if !strings.HasPrefix(head, "y\ny\n") || !strings.HasSuffix(tail, "y\ny\n") {
		t.Errorf("head or tail is not the stream's")
	}
	fi, err := os.Stat(res.SpillPath)
	if err != nil || fi.Size() != total {
		t.Fatalf("spill file: %v, size %d; want %d bytes", err, fi.Size(), total)
	}
	if grew := int64(peak.Load()) - int64(base.HeapAlloc); grew >= 16<<20 {
		t.Errorf("heap grew by %d MiB while running; want < 16 MiB", grew>>20)
	}
}

func TestSpillKeepsBothStreams(t *testing.T) {
	s := newSession(t, kernel.Config{OutputLimit: 64}, kernel.SessionOptions{})
	res := run(t, s, "seq 1 1000; echo short >&2")
	if !res.Truncated || res.StdoutBytes != 3893 || res.Stderr != "short\n" {
		t.Fatalf("%+v", res)
	}
	b, err := os.ReadFile(res.SpillPath)
	if err != nil || !strings.HasPrefix(string(b), "1\n2\n3\n") || !strings.HasSuffix(string(b), "999\n1000\n") || len(b) != 3893 {
		t.Errorf("spill: %v %d bytes", err, len(b))
	}
}

// TestPipelinesNeverLoseOrInterleave repeats a pipeline whose stages all
// write to stderr while their stdout flows on: 80 rounds, about 600
// processes, find a lost or split line where one round seldom does.
func TestPipelinesNeverLoseOrInterleave(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	const stages = `sh -c 'for i in $(seq 50); do echo "first-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" >&2; done; echo out' | ` +
		`{ for i in $(seq 50); do echo "second-$i-yyyyyyyyyyyyyyyyyyyyyyy" >&2; done; cat; } | ` +
		`sh -c 'cat; for i in $(seq 50); do echo "third-$i-zzzzzzzzzzzzzzzzzzzzzzzzzzzz" >&2; done'`
	line := regexp.MustCompile(`^(first-\d+-x{31}|second-\d+-y{23}|third-\d+-z{28})$`)
	for i := range testpar.Rounds(25) {
		res := run(t, s, "yes | head -1")
		if res.Stdout != "y\n" || res.ExitCode != 0 {
			t.Fatalf("run %d of yes | head -1: %+v", i, res)
		}
		res = run(t, s, stages)
		if res.Stdout != "out\n" {
			t.Fatalf("run %d: stdout %q", i, res.Stdout)
		}
		lines := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n")
		if len(lines) != 150 {
			t.Fatalf("run %d: %d stderr lines, want 150", i, len(lines))
		}
		next := map[string]int{"first": 1, "second": 1, "third": 1}
		for _, l := range lines {
			if !line.MatchString(l) {
				t.Fatalf("run %d: damaged line %q", i, l)
			}
			stage, rest, _ := strings.Cut(l, "-")
			n, _, _ := strings.Cut(rest, "-")
			if n != fmt.Sprint(next[stage]) {
				t.Fatalf("run %d: %s out of order: got %s, want %d", i, stage, n, next[stage])
			}
			next[stage]++
		}
	}
}

func TestRunStreamsToTheEmbedder(t *testing.T) {
	s := newSession(t, kernel.Config{OutputLimit: 8}, kernel.SessionOptions{})
	var out, errOut strings.Builder
	res, err := s.Run(context.Background(), "echo 0123456789abcdef; echo e >&2", kernel.RunOptions{Stdout: &out, Stderr: &errOut})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "0123456789abcdef\n" || errOut.String() != "e\n" || !res.Truncated {
		t.Errorf("streamed %q %q; result %+v", out.String(), errOut.String(), res)
	}
}

func TestSpillsOutliveTheSessionUnlessDiscarded(t *testing.T) {
	for _, discard := range []bool{false, true} {
		k, err := kernel.New(withLaunchers(kernel.Config{OutputLimit: 16}))
		if err != nil {
			t.Fatal(err)
		}
		s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: discard})
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, s, "seq 1 100")
		if res.SpillPath == "" {
			t.Fatal("nothing spilled")
		}
		s.Close()
		_, err = os.Stat(res.SpillPath)
		if kept := err == nil; kept == discard {
			t.Errorf("DiscardSpills %v: spill file kept %v", discard, kept)
		}
		os.RemoveAll(filepath.Dir(res.SpillPath))
	}

	// A session that spilled nothing leaves no directory behind.
	k, _ := kernel.New(withLaunchers(kernel.Config{}))
	s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s, "(echo job; sleep 30.6173) &")
	if len(res.Jobs) != 1 {
		t.Fatalf("jobs: %+v", res.Jobs)
	}
	log := res.Jobs[0].Log
	waitFor(t, func() bool {
		b, _ := os.ReadFile(log)
		return string(b) == "job\n"
	})
	logDir := s.SpillDir()
	s.Close()
	if b, err := os.ReadFile(log); err != nil || string(b) != "job\n" {
		t.Errorf("job log after Close: %q, %v", b, err)
	}
	if pids := processesWith(t, "30.6173"); len(pids) > 0 {
		t.Errorf("Close left the job running: %v", pids)
	}
	os.RemoveAll(logDir)

	s, _ = k.NewSession(kernel.SessionOptions{Dir: t.TempDir()})
	run(t, s, "echo small")
	s.Close()
	if _, err := os.Stat(s.SpillDir()); !os.IsNotExist(err) {
		t.Errorf("an empty spill directory survived Close: %v", err)
	}
}
