// Package testpar raises a test binary's parallelism for packages whose
// tests mostly wait: on child processes, pipes and timers, not the CPU;
// and it sizes stress tests (Rounds).
package testpar

import (
	"flag"
	"os"
	"runtime"
	"strconv"
)

// Raise sets -test.parallel to four times GOMAXPROCS unless the command
// line set it: with the default (GOMAXPROCS), two tests waiting out a kill
// grace hold a two-core machine's only slots while the CPU idles. Call it
// from TestMain after flag.Parse.
func Raise() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
}

// Rounds is how many rounds a stress test runs: n, or n times
// SHELTER_SOAK when that is a positive number. The default keeps
// `go test ./...` within its minute on a two-core machine; a long soak
// is opt-in.
func Rounds(n int) int {
	if k, err := strconv.Atoi(os.Getenv("SHELTER_SOAK")); err == nil && k > 0 {
		return n * k
	}
	return n
}
