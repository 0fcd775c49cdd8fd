package bashcompat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"mvdan.cc/sh/v3/interp"
)

// sigpipeStatus is the status of a process killed by SIGPIPE.
const sigpipeStatus = 128 + int(syscall.SIGPIPE)

// writeOut writes p to the command's stdout in one Write and gives the
// command's status: 0; 1 when the write failed (said on stderr, unless
// the memory budget ended the call, which says why itself); sigpipeStatus
// for a pipe nobody reads any more, where the caller ends the command's
// pipeline stage as SIGPIPE ends a process, running nothing more, so that
// `while true; do echo x; done | head -1` ends.
func writeOut(ctx context.Context, sh Shell, hc interp.HandlerContext, name, p string) int {
	if p == "" {
		return 0
	}
	_, err := io.WriteString(sh.Stdout(ctx, hc), p)
	return writeStatus(sh, hc, name, err)
}

// writeBytes is writeOut for output built in a buffer.
func writeBytes(ctx context.Context, sh Shell, hc interp.HandlerContext, name string, p []byte) int {
	if len(p) == 0 {
		return 0
	}
	_, err := sh.Stdout(ctx, hc).Write(p)
	return writeStatus(sh, hc, name, err)
}

// writeStatus is the status of a command whose write ended with err.
func writeStatus(sh Shell, hc interp.HandlerContext, name string, err error) int {
	switch {
	case err == nil:
		return 0
	case brokenPipe(err):
		return sigpipeStatus
	case !sh.MemoryExceeded(err):
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		fmt.Fprintf(hc.Stderr, "%s: write error: %v\n", name, err)
	}
	return 1
}

// SigpipeExit ends the running (sub)shell with 141, as SIGPIPE ends a
// process: what the exec handler does for shast.CmdSigpipe, which a
// builtin whose output nobody reads any more hands back. A pipeline
// stage is a subshell, so only that stage ends.
func SigpipeExit(ctx context.Context, hc interp.HandlerContext) error {
	return hc.Builtin(ctx, []string{"exit", fmt.Sprint(sigpipeStatus)})
}

func brokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}
