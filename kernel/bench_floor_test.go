package kernel_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel"
)

// The benchmarks here set shelter beside the floor it is built on: the
// same work done by a bare mvdan/sh runner, alternated with shelter's in
// one loop so that a busy machine slows both alike. Each reports the two
// times per op and their ratio.

// floor times shelter's op and the bare one alternately and reports both
// and their ratio.
func floor(b *testing.B, shelter, bare func()) {
	b.Helper()
	var a, c time.Duration
	for b.Loop() {
		t0 := time.Now()
		shelter()
		t1 := time.Now()
		bare()
		a, c = a+t1.Sub(t0), c+time.Since(t1)
	}
	b.ReportMetric(float64(a.Nanoseconds())/float64(b.N), "shelter-ns/op")
	b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "bare-ns/op")
	b.ReportMetric(float64(a)/float64(c), "ratio")
}

// bareRunner is a mvdan/sh runner with an explicit environment of the
// size a session's is, writing to out.
func bareRunner(b *testing.B, dir string, out io.Writer) *interp.Runner {
	b.Helper()
	env := expand.ListEnviron("PATH="+os.Getenv("PATH"), "HOME="+dir, "TMPDIR="+dir, "PWD="+dir, "LANG=C.UTF-8", "TERM=dumb")
	r, err := interp.New(interp.Env(env), interp.Dir(dir), interp.StdIO(nil, out, out))
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkNewSessionClose is NewSession and Close of a session that runs
// nothing, beside interp.New and Reset of a bare runner.
func BenchmarkNewSessionClose(b *testing.B) {
	k, err := kernel.New(withLaunchers(kernel.Config{}))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	opts := kernel.SessionOptions{Dir: dir, DiscardSpills: true}
	b.ReportAllocs()
	floor(b, func() {
		s, err := k.NewSession(opts)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}, func() {
		bareRunner(b, dir, io.Discard).Reset()
	})
}

// script1000 is a script of 1,000 top-level statements.
var script1000 = func() string {
	var sb strings.Builder
	for i := range 500 {
		fmt.Fprintf(&sb, "x=%d\necho \"line $x\"\n", i)
	}
	return sb.String()
}()

// BenchmarkScript1000 is one Run of a 1,000-statement script, beside the
// bare runner's parse and run of it into a buffer.
func BenchmarkScript1000(b *testing.B) {
	s := newSession(b, kernel.Config{}, kernel.SessionOptions{})
	ctx := context.Background()
	var out strings.Builder
	r := bareRunner(b, s.Dir(), &out)
	p := syntax.NewParser()
	floor(b, func() {
		res, err := s.Run(ctx, script1000, kernel.RunOptions{})
		if err != nil || res.ExitCode != 0 || !strings.HasSuffix(res.Stdout, "line 499\n") {
			b.Fatalf("%v %+v", err, res)
		}
	}, func() {
		out.Reset()
		f, err := p.Parse(strings.NewReader(script1000), "")
		if err != nil {
			b.Fatal(err)
		}
		r.Reset()
		if err := r.Run(ctx, f); err != nil || !strings.HasSuffix(out.String(), "line 499\n") {
			b.Fatal(err)
		}
	})
}

const spill200k = `for ((i = 0; i < 200000; i++)); do echo "line $i"; done`

// BenchmarkSpill200k is one Run printing 200,000 lines in the agent
// profile, far past its output limit, so that nearly all of it goes to
// the spill file; beside the bare runner writing the same to io.Discard.
func BenchmarkSpill200k(b *testing.B) {
	cfg, _ := kernel.Preset(kernel.ProfileAgent)
	s := newSession(b, cfg, kernel.SessionOptions{})
	ctx := context.Background()
	r := bareRunner(b, s.Dir(), io.Discard)
	f, err := syntax.NewParser().Parse(strings.NewReader(spill200k), "")
	if err != nil {
		b.Fatal(err)
	}
	floor(b, func() {
		res, err := s.Run(ctx, spill200k, kernel.RunOptions{})
		if err != nil || res.ExitCode != 0 || res.SpillPath == "" {
			b.Fatalf("%v %+v", err, res)
		}
		os.Remove(res.SpillPath)
	}, func() {
		r.Reset()
		if err := r.Run(ctx, f); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkRunExternal is one Run of a small script with one program
// found on PATH, beside os/exec starting the same program.
func BenchmarkRunExternal(b *testing.B) {
	s := newSession(b, kernel.Config{}, kernel.SessionOptions{})
	ctx := context.Background()
	path, err := exec.LookPath("uname")
	if err != nil {
		b.Skip("no uname")
	}
	floor(b, func() {
		res, err := s.Run(ctx, "x=1; uname >/dev/null; echo $x", kernel.RunOptions{})
		if err != nil || res.ExitCode != 0 || res.Stdout != "1\n" {
			b.Fatalf("%v %+v", err, res)
		}
	}, func() {
		if err := exec.Command(path).Run(); err != nil {
			b.Fatal(err)
		}
	})
}
