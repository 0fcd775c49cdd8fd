package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

// MaxOutput bounds the stdout of an executable tool with an output
// schema, which is kept to be parsed as JSON.
const MaxOutput = 16 << 20

// Exec makes an executable tool: argv[0] is run with argv[1:], the
// validated input as one line of JSON on stdin (the object, then a
// newline), the session's exported environment exactly and the session's
// working directory, under the session's process discipline. Its stdout
// and stderr are the tool's; its exit status is the call's.
//
// argv[0] is an absolute path, a path relative to the session's working
// directory when it holds a slash, or a name looked up on the session's
// PATH at each call. When def has an output schema and the program exits
// 0, its stdout must be one JSON value matching the schema; it becomes the
// call's data.
func Exec(def Def, argv []string) (kernel.Tool, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("harness: tool %s: empty command to run", def.Name)
	}
	argv = slices.Clone(argv)
	t, err := newTool(def, func(ctx context.Context, t *Tool, c *kernel.Call, input json.RawMessage) error {
		if t.output != nil {
			return runWithOutput(ctx, t, c, argv, input)
		}
		return runExecutable(ctx, c, argv, input)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

func runExecutable(ctx context.Context, c *kernel.Call, argv []string, input json.RawMessage) error {
	status, err := spawnTool(ctx, c, argv, input, c.Stdout)
	if err != nil {
		return err
	}
	if status != 0 {
		return kernel.ExitStatus(status)
	}
	return nil
}

// runWithOutput runs the program and, when it exits 0, parses what it
// printed as the call's JSON data.
func runWithOutput(ctx context.Context, t *Tool, c *kernel.Call, argv []string, input json.RawMessage) error {
	captured := &cappedBuffer{max: MaxOutput}
	status, err := spawnTool(ctx, c, argv, input, io.MultiWriter(c.Stdout, captured))
	if err != nil {
		return err
	}
	if status != 0 {
		return kernel.ExitStatus(status)
	}
	if captured.over {
		return fmt.Errorf("output exceeds %d bytes; it cannot be read as JSON", MaxOutput)
	}
	out := bytes.TrimSpace(captured.buf.Bytes())
	if !json.Valid(out) {
		return fmt.Errorf("output is not one JSON value, as its output schema requires")
	}
	if err := t.checkOutput(out); err != nil {
		fmt.Fprintln(c.Stderr, err)
		return kernel.ExitStatus(1)
	}
	var compact bytes.Buffer
	json.Compact(&compact, out)
	c.SetData(compact.Bytes())
	return nil
}

// spawnTool starts the program with the input on stdin. A program that
// cannot be found or started is reported on stderr with the shell's
// status (127, 126); err is non-nil only when ctx ended.
func spawnTool(ctx context.Context, c *kernel.Call, argv []string, input json.RawMessage, stdout io.Writer) (int, error) {
	name := c.Args[0]
	path, err := spawn.LookPath(c.Getenv("PATH"), c.Dir, argv[0])
	if err != nil {
		status := 127
		var le *spawn.LookPathError
		if errors.As(err, &le) {
			status = le.Status
		}
		fmt.Fprintf(c.Stderr, "%s: %v\n", name, err)
		return status, nil
	}
	stdin := make([]byte, 0, len(input)+1)
	stdin = append(append(stdin, input...), '\n')
	status, err := c.Spawn(ctx, &spawn.Cmd{
		Path:   path,
		Args:   argv,
		Stdin:  bytes.NewReader(stdin),
		Stdout: stdout,
		Stderr: c.Stderr,
	})
	if err != nil {
		if ctx.Err() != nil {
			return status, ctx.Err()
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		fmt.Fprintf(c.Stderr, "%s: %s: %v\n", name, argv[0], err)
		if status == 0 {
			status = 126
		}
	}
	return status, nil
}

// cappedBuffer keeps at most max bytes and remembers whether more came.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}
