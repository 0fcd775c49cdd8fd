// Package testpar raises a test binary's parallelism for packages whose
// tests mostly wait: on child processes, pipes and timers, not the CPU.
package testpar

import (
	"flag"
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
