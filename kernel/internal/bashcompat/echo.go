package bashcompat

import (
	"context"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/bashfmt"
)

// echoCall writes echo's output whole, in the call handler: the shell's
// echo writes a line in several pieces, and pipeline stages run
// concurrently and share stderr and the result's stdout, so a line could
// be cut by another stage's.
func echoCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	buf := echoBuffers.Get().(*[]byte)
	out := bashfmt.AppendEcho((*buf)[:0], args[1:], xpgEcho(hc, args[1:]))
	next := wroteArgv(sh, hc, writeBytes(ctx, sh, hc, "echo", out), 0)
	if cap(out) <= maxEchoBuffer {
		*buf = out[:0]
		echoBuffers.Put(buf)
	}
	return next
}

// echoBuffers are echo's output buffers, kept from one echo to the next:
// an echo in a loop would allocate one per line. A buffer that grew past
// maxEchoBuffer is let go.
var echoBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxEchoBuffer = 64 << 10

// xpgEcho reports whether echo expands escapes without -e: shopt -s
// xpg_echo, which is looked up only when an argument holds a backslash.
func xpgEcho(hc interp.HandlerContext, args []string) bool {
	for _, a := range args {
		if strings.IndexByte(a, '\\') >= 0 {
			return HeldOption(hc.Env, "xpg_echo")
		}
	}
	return false
}
