package kernel_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// BenchmarkRunEcho is one Session.Run of `echo hi`: parse, validation,
// capture and the interpreter. Compare with BenchmarkBashEcho.
func BenchmarkRunEcho(b *testing.B) {
	s := newSession(b, kernel.Config{}, kernel.SessionOptions{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.Run(ctx, "echo hi", kernel.RunOptions{})
		if err != nil || res.Stdout != "hi\n" {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkBashEcho is the same script through a fresh bash.
func BenchmarkBashEcho(b *testing.B) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	for b.Loop() {
		out, err := exec.Command(bash, "-c", "echo hi").Output()
		if err != nil || string(out) != "hi\n" {
			b.Fatalf("%v %q", err, out)
		}
	}
}
