package budget

import (
	"errors"
	"runtime"
)

// MaxCallDepth bounds how deep functions, eval and source may nest: past
// it mvdan/sh's goroutine stack would overflow (a fatal error). bash
// itself dies of a full stack at a few thousand levels.
const MaxCallDepth = 2500

// framesPerCall is about how many Go frames one level of a shell function
// call takes in mvdan/sh (call, stmt, cmd, …).
const framesPerCall = 8

// ErrTooDeep is what a Budget ends its call with when its calls nest past
// MaxCallDepth.
var ErrTooDeep = errors.New("calls nested too deep")

// DeepStack reports whether the goroutine's stack has grown past
// MaxCallDepth levels of calls; the call handler asks at every command.
// Counting the frames walks the whole stack, so it counts them only once
// enough commands have run since the last count for the stack to have
// reached the bound, each command opening at most one level (a function,
// eval or source), and at least every [maxInterval] commands, for the
// call's other goroutines (`cmd &`).
func (b *Budget) DeepStack() bool {
	n := b.calls.Add(1)
	if n < b.count.Load() {
		return false
	}
	var pc [256]uintptr
	levels := MaxCallDepth // unknown: past what pc holds
	if frames := runtime.Callers(0, pc[:]); frames < len(pc) {
		levels = frames / framesPerCall
	} else if runtime.Callers(MaxCallDepth*framesPerCall, pc[:1]) > 0 {
		return true
	}
	b.count.Store(n + int64(min(max(MaxCallDepth-levels, deepInterval), maxInterval)))
	return false
}

// maxInterval bounds how many commands DeepStack lets by between two
// counts; deepInterval is how many it lets by after a stack too deep to
// count at once.
const (
	maxInterval  = 1024
	deepInterval = 128
)
