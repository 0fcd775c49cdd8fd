package spawn_test

import (
	"context"
	"io/fs"
	"os/exec"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/spawn"
)

// BenchmarkRunTrue is spawn.Run of /bin/true with its output captured by
// sinks, as the kernel runs it; compare with BenchmarkExecTrue.
func BenchmarkRunTrue(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		out, errOut := spawn.NewSink(0, 0, "", "out"), spawn.NewSink(0, 0, "", "err")
		status, err := spawn.Run(ctx, &spawn.Cmd{Path: "/bin/true", Args: []string{"true"}, Dir: "/", Stdout: out, Stderr: errOut})
		if status != 0 || err != nil {
			b.Fatal(status, err)
		}
	}
}

// BenchmarkExecTrue is exec.Command("/bin/true").Run().
func BenchmarkExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTrueVsExec alternates the two above and reports the ratio
// of their times.
func BenchmarkRunTrueVsExec(b *testing.B) {
	ctx := context.Background()
	var run, bare time.Duration
	for b.Loop() {
		t0 := time.Now()
		out, errOut := spawn.NewSink(0, 0, "", "out"), spawn.NewSink(0, 0, "", "err")
		if status, err := spawn.Run(ctx, &spawn.Cmd{Path: "/bin/true", Args: []string{"true"}, Dir: "/", Stdout: out, Stderr: errOut}); status != 0 || err != nil {
			b.Fatal(status, err)
		}
		t1 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		run, bare = run+t1.Sub(t0), bare+time.Since(t1)
	}
	b.ReportMetric(float64(run)/float64(bare), "ratio")
}

// BenchmarkRunTrueUmask is BenchmarkRunTrue with Cmd.Umask set, and
// without for comparison: on Linux the start hops to the mask's starter
// thread.
func BenchmarkRunTrueUmask(b *testing.B) {
	mask := fs.FileMode(0o077)
	for _, bc := range []struct {
		name  string
		umask *fs.FileMode
	}{{"inherit", nil}, {"077", &mask}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				out, errOut := spawn.NewSink(0, 0, "", "out"), spawn.NewSink(0, 0, "", "err")
				status, err := spawn.Run(ctx, &spawn.Cmd{Path: "/bin/true", Args: []string{"true"}, Dir: "/", Stdout: out, Stderr: errOut, Umask: bc.umask})
				if status != 0 || err != nil {
					b.Fatal(status, err)
				}
			}
		})
	}
}
