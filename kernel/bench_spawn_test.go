package kernel_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// BenchmarkRunTrue is one Session.Run of `/bin/true`: parse, validation,
// capture, the exec handler and the spawn discipline around one child.
// Compare with BenchmarkExecTrue, the bare os/exec start of the same
// program.
func BenchmarkRunTrue(b *testing.B) {
	s := spawnSession(b, kernel.Config{}, kernel.SessionOptions{})
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
