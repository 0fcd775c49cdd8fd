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

// BenchmarkRunSmallScript is one Session.Run of a typical agent's call
// (the script of bench's SmallScript): assignments, an if, a loop, a
// function and a command substitution.
func BenchmarkRunSmallScript(b *testing.B) {
	const script = `a=1
b=two
name=shelter
if [ "$a" -eq 1 ]; then msg=one; else msg=other; fi
greet() { echo "hello $1 ($msg)"; }
sum=0
for i in 1 2 3 4 5 6 7 8 9 10; do sum=$((sum + i)); done
greet "$name"
echo "sum=$sum $(echo sub "$b")"
`
	s := newSession(b, kernel.Config{}, kernel.SessionOptions{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.Run(ctx, script, kernel.RunOptions{})
		if err != nil || res.Stdout != "hello shelter (one)\nsum=55 sub two\n" {
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
