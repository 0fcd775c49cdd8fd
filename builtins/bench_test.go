package builtins

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
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
	var inProcess, forked time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		runPipeline(b, ours)
		mid := time.Now()
		runPipeline(b, host)
		inProcess += mid.Sub(start)
		forked += time.Since(mid)
	}
	n := float64(b.N)
	b.ReportMetric(float64(inProcess.Microseconds())/n, "builtins-µs/op")
	b.ReportMetric(float64(forked.Microseconds())/n, "host-µs/op")
	b.ReportMetric(float64(forked)/float64(inProcess), "host/builtins")
}
