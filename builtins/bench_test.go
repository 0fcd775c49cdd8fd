package builtins

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// pipeline is the benchmark's script, over a 1 MB file.
const pipeline = "cat f | grep x | sort | uniq -c | wc -l"

// benchFile writes a 1 MB file of short words, about a third with an x.
func benchFile(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		fmt.Fprintf(&sb, "%c%c%c line %d\n", 'a'+r.IntN(26), 'a'+r.IntN(26), 'a'+r.IntN(26), r.IntN(5000))
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func benchSession(b *testing.B, dir string, tools []kernel.Tool) *kernel.Session {
	b.Helper()
	k, err := kernel.New(kernel.Config{Tools: tools, Env: map[string]string{"LC_ALL": "C"}})
	if err != nil {
		b.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, DiscardSpills: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func runPipeline(b *testing.B, s *kernel.Session) string {
	res, err := s.Run(context.Background(), pipeline, kernel.RunOptions{})
	if err != nil || res.ExitCode != 0 {
		b.Fatalf("%v: exit %d, %q", err, res.ExitCode, res.Stderr)
	}
	return res.Stdout
}

// BenchmarkPipelineBuiltins runs `cat f | grep x | sort | uniq -c | wc -l`
// on a 1 MB file with the builtins, and the same with the host's
// programs, alternating in one loop; it reports each one's time per run
// and host/builtins, how many times faster the builtins are.
//
// A third arm, the floor, is the same work as one Go function: read the
// file, keep the lines with an x, sort them (with sort's own code), count
// the distinct ones; no shell, no pipes, no copies between stages. host/floor bounds what any
// in-process pipeline could reach on the machine.
func BenchmarkPipelineBuiltins(b *testing.B) {
	for _, tool := range []string{"cat", "grep", "sort", "uniq", "wc"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("no %s on this machine", tool)
		}
	}
	dir := benchFile(b)
	ours := benchSession(b, dir, Coreutils())
	host := benchSession(b, dir, nil)
	if a, h := runPipeline(b, ours), runPipeline(b, host); a != h {
		b.Fatalf("builtins print %q, the host's programs %q", a, h)
	}
	file := filepath.Join(dir, "f")
	if got, want := pipelineFloor(b, file), strings.TrimSpace(runPipeline(b, host)); strconv.Itoa(got) != want {
		b.Fatalf("the floor counts %d lines, the host's programs %s", got, want)
	}
	var inProcess, forked, floor time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		runPipeline(b, ours)
		mid := time.Now()
		runPipeline(b, host)
		end := time.Now()
		pipelineFloor(b, file)
		inProcess += mid.Sub(start)
		forked += end.Sub(mid)
		floor += time.Since(end)
	}
	n := float64(b.N)
	b.ReportMetric(float64(inProcess.Microseconds())/n, "builtins-µs/op")
	b.ReportMetric(float64(forked.Microseconds())/n, "host-µs/op")
	b.ReportMetric(float64(floor.Microseconds())/n, "floor-µs/op")
	b.ReportMetric(float64(forked)/float64(inProcess), "host/builtins")
	b.ReportMetric(float64(forked)/float64(floor), "host/floor")
}

// pipelineFloor is the pipeline's work done directly: the number of
// distinct lines of file that hold an x.
func pipelineFloor(b *testing.B, file string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, 'x')
		if i < 0 {
			break
		}
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += i
		}
		lines = append(lines, data[start:end])
		data = data[min(end+1, len(data)):]
	}
	lines = sortBytes(lines) // the builtins' own sort, the fastest here
	distinct := 0
	for i, l := range lines {
		if i == 0 || !bytes.Equal(l, lines[i-1]) {
			distinct++
		}
	}
	return distinct
}
