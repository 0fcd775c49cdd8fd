package budget

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
)

// Cat is `$(< FILE)`: the file the redirection opened, stdin, copied to
// the capture, stdout, within ctx (the call's deadline) and b, which may
// be nil; it returns the command's status. NUL bytes are dropped as they
// arrive, as bash does (the capture would lose them anyway), but count
// against the budget: what is read is what is held.
func Cat(ctx context.Context, b *Budget, stdin io.Reader, stdout, stderr io.Writer) int {
	buf := make([]byte, 32<<10)
	var total int64
	for {
		if ctx.Err() != nil {
			dropCapture(stdout)
			return 1
		}
		n, err := stdin.Read(buf)
		if n > 0 {
			total += int64(n)
			if !b.Allows(total) {
				b.Exceed("a command substitution's output", total)
				dropCapture(stdout)
				return 1
			}
			stdout.Write(withoutNUL(buf[:n]))
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			if ctx.Err() != nil {
				// The deadline the call's end set on a FIFO (fsroot.Arm).
				dropCapture(stdout)
				return 1
			}
			fmt.Fprintf(stderr, "shelter: %v\n", err)
			return 1
		}
	}
}

// withoutNUL returns p without its NUL bytes: p itself when it has none,
// else a copy (a Write must not change what it is given).
func withoutNUL(p []byte) []byte {
	if bytes.IndexByte(p, 0) < 0 {
		return p
	}
	out := make([]byte, 0, len(p))
	for _, c := range p {
		if c != 0 {
			out = append(out, c)
		}
	}
	return out
}

// dropCapture frees a capture of a call that is ending: the interpreter
// would still scan all of it.
func dropCapture(w io.Writer) {
	if sb, ok := w.(*strings.Builder); ok {
		sb.Reset()
	}
}

// Bound wraps a command's stdout when it is held in memory by the shell
// (a command substitution's capture, a *strings.Builder), so that it
// counts against b; else, or when b is nil, it returns w.
func Bound(w io.Writer, b *Budget) io.Writer {
	sb, ok := w.(*strings.Builder)
	if !ok || b == nil {
		return w
	}
	return &captureWriter{sb: sb, b: b}
}

// captureWriter refuses what would grow a capture past the budget, and
// ends the call.
type captureWriter struct {
	sb      *strings.Builder
	b       *Budget
	dropped int64 // NUL bytes received and dropped, which count all the same
}

func (w *captureWriter) Write(p []byte) (int, error) {
	if size := int64(w.sb.Len()+len(p)) + w.dropped; !w.b.Allows(size) {
		w.sb.Reset()
		return 0, w.b.Exceed("a command substitution's output", size)
	}
	n := len(p)
	kept := withoutNUL(p)
	w.dropped += int64(n - len(kept))
	w.sb.Write(kept)
	return n, nil
}
