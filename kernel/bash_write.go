package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"mvdan.cc/sh/v3/interp"
)

// sigpipeStatus is the status of a process killed by SIGPIPE.
const sigpipeStatus = 128 + int(syscall.SIGPIPE)

// writeOut writes p to the command's stdout in one Write, from the exec
// handler. Writing to a pipe nobody reads any more ends the command's
// pipeline stage as SIGPIPE ends a process: with status 141, running
// nothing more, so that `while true; do echo x; done | head -1` ends.
func (s *Session) writeOut(ctx context.Context, hc interp.HandlerContext, name, p string) error {
	if p == "" {
		return nil
	}
	_, err := io.WriteString(s.bounded(ctx, hc.Stdout), p)
	return writeFailure(ctx, hc, name, err)
}

// writeFailure turns a failed write into how the command ends.
func writeFailure(ctx context.Context, hc interp.HandlerContext, name string, err error) error {
	switch {
	case err == nil:
		return nil
	case brokenPipe(err):
		return sigpipeExit(ctx, hc)
	case isMemoryError(err):
		return interp.ExitStatus(1) // the call ends and says why
	}
	fmt.Fprintf(hc.Stderr, "%s: write error: %v\n", name, unwrapPathError(err))
	return interp.ExitStatus(1)
}

// sigpipeExit ends the running (sub)shell with 141: a pipeline stage is a
// subshell, so only that stage ends.
func sigpipeExit(ctx context.Context, hc interp.HandlerContext) error {
	return hc.Builtin(ctx, []string{"exit", fmt.Sprint(sigpipeStatus)})
}

func brokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}
