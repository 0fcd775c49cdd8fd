package kernel_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// BenchmarkRunTrue is one Session.Run of `/bin/true`: parse, validation,
// capture, the exec handler and the spawn discipline around one child.
// Compare with BenchmarkExecTrue, the bare os/exec start of the same
// program.
func BenchmarkRunTrue(b *testing.B) {
	s := newSession(b, kernel.Config{}, kernel.SessionOptions{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.Run(ctx, "/bin/true", kernel.RunOptions{})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkExecTrue is exec.Command("/bin/true").Run().
func BenchmarkExecTrue(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTrueVsExec alternates the two above in one loop, so that a
// busy machine slows both alike, and reports the ratio of their times.
func BenchmarkRunTrueVsExec(b *testing.B) {
	s := newSession(b, kernel.Config{}, kernel.SessionOptions{})
	ctx := context.Background()
	var run, bare time.Duration
	for b.Loop() {
		t0 := time.Now()
		if res, err := s.Run(ctx, "/bin/true", kernel.RunOptions{}); err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
		t1 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		run, bare = run+t1.Sub(t0), bare+time.Since(t1)
	}
	b.ReportMetric(float64(run.Nanoseconds())/float64(b.N), "run-ns/op")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "exec-ns/op")
	b.ReportMetric(float64(run)/float64(bare), "ratio")
}
