package kernel

import (
	"context"
	"io"
	"strconv"

	"mvdan.cc/sh/v3/interp"
)

// containCall runs first in the call handler, before any other rerouting:
// it may refuse a command (returning the argv that prints nothing and
// fails) or end the call when it outgrew its memory budget. ok is false
// when the command goes on as usual.
func (s *Session) containCall(ctx context.Context, args []string) (next []string, ok bool) {
	return nil, false
}

// bounded wraps a command's stdout when it is held in memory by the shell
// (a command substitution's capture), so that it counts against the
// call's memory budget.
func (s *Session) bounded(ctx context.Context, w io.Writer) io.Writer {
	return w
}

// statusArgv is the argv of a command that only exits with status n: what
// a replaced builtin hands back to the interpreter.
func statusArgv(n int) []string {
	return []string{internalPrefix + "status", strconv.Itoa(n)}
}

func statusOf(args []string) error {
	n, _ := strconv.Atoi(args[0])
	if n == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(n))
}
