package builtins

import (
	"context"
	"io"
	"os"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdTee = &command{
	name:     "tee",
	usage:    "[OPTION]... [FILE]...",
	about:    "Copy standard input to each FILE, and also to standard output.",
	operands: "files to write",
	flags: []flag{
		{short: 'a', long: "append", about: "append to the given FILEs, do not overwrite"},
		{short: 'i', long: "ignore-interrupts", about: "ignore interrupt signals (accepted; a builtin gets none)"},
	},
	run: runTee,
}

// teeOutput is one destination; a failed one is dropped, as GNU does.
type teeOutput struct {
	name string
	w    io.Writer
}

func runTee(ctx context.Context, c *kernel.Call, a *args) error {
	mode := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if a.has("append") {
		mode = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	failed := false
	outs := []teeOutput{{name: "standard output", w: c.Stdout}}
	var files []io.Closer
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, name := range a.operands {
		f, err := c.Opener().OpenFile(ctx, name, mode, 0o666)
		if err != nil {
			failf(c, "%s", errText(asNamed(err, name)))
			failed = true
			continue
		}
		files = append(files, f)
		outs = append(outs, teeOutput{name: name, w: f})
	}
	if c.Stdin != nil {
		buf := make([]byte, 32<<10)
		for live := len(outs); live > 0; {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := c.Stdin.Read(buf)
			if n > 0 {
				for i := range outs {
					if outs[i].w == nil {
						continue
					}
					if _, werr := outs[i].w.Write(buf[:n]); werr != nil {
						if i == 0 {
							// A closed pipe on stdout ends tee quietly, as
							// SIGPIPE ends GNU's.
							return status(1)
						}
						failf(c, "%s: %s", outs[i].name, reason(werr))
						failed = true
						outs[i].w = nil
						live--
					}
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				if interrupted(ctx, err) {
					return err
				}
				failf(c, "read error: %s", reason(err))
				failed = true
				break
			}
		}
	}
	for i, f := range files {
		if err := f.Close(); err != nil {
			failf(c, "%s: %s", outs[i+1].name, reason(err))
			failed = true
		}
	}
	files = nil
	if failed {
		return status(1)
	}
	return nil
}
