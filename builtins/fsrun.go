package builtins

import (
	"bufio"
	"context"
	"fmt"

	"github.com/shelter-sh/shelter/kernel"
)

// fsRun is one run of a file command (cp, mv, ln, rm): the call, its
// opener, its standard output, buffered, and the status its failures set.
type fsRun struct {
	ctx  context.Context
	c    *kernel.Call
	o    *kernel.Opener
	w    *bufio.Writer
	name string // what each failure line starts with
	st   int
}

// newFsRun starts a run of the call: failures are named after the
// command as called.
func newFsRun(ctx context.Context, c *kernel.Call) *fsRun {
	return &fsRun{ctx: ctx, c: c, o: c.Opener(), w: bufio.NewWriter(c.Stdout), name: c.Args[0]}
}

// fail prints a failure after what the run has printed so far and makes
// the run's status 1.
func (r *fsRun) fail(format string, a ...any) {
	r.w.Flush()
	fmt.Fprintf(r.c.Stderr, "%s: %s\n", r.name, fmt.Sprintf(format, a...))
	r.st = 1
}

// status flushes the run's output and returns its status: 1 when a
// failure was printed or the output could not be written.
func (r *fsRun) status() error {
	if r.w.Flush() != nil {
		return status(1)
	}
	return status(r.st)
}
