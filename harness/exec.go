package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

// MaxOutput bounds the stdout of an executable tool with an output
// schema, which is kept to be parsed as JSON.
const MaxOutput = 16 << 20

// Exec makes an executable tool: argv[0] is run with argv[1:], the
// validated input as one line of JSON on stdin (the object, then a
// newline), the environment of a declared program
// (kernel.Call.ProgramEnv with def.PassEnv) with def.Env pinned over it,
// and the session's working directory, under the session's process
// discipline. Its stdout and stderr are the tool's; its exit status is
// the call's. Where the session confines its programs, def.Network,
// def.ReadPaths and def.WritePaths widen what the program may reach.
//
// argv[0] is an absolute path; a path relative to the session's working
// directory when it holds a slash; or a bare name, looked up once, now, in
// the PATH of shelter's own process (never the session's, which the agent
// may set) and run by that absolute path ever after. A bare name that is
// not found there is Exec's error. When def has an output schema and the
// program exits 0, its stdout must be one JSON value matching the schema;
// it becomes the call's data.
func Exec(def Def, argv []string) (kernel.Tool, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("harness: tool %s: empty command to run", def.Name)
	}
	argv = slices.Clone(argv)
	var path string
	t, err := newTool(def, func(ctx context.Context, t *Tool, c *kernel.Call, input json.RawMessage) error {
		p := program{path: path, argv: argv, env: pins(t.def.Env), pass: t.def.PassEnv,
			network: t.def.Network, read: t.def.ReadPaths, write: t.def.WritePaths}
		if t.output != nil {
			return runWithOutput(ctx, t, c, p, input)
		}
		return runExecutable(ctx, c, p, input)
	})
	if err != nil {
		return nil, err
	}
	// After the definition's checks: a bad schema is reported first.
	if path, err = pinProgram(def.Name, argv[0]); err != nil {
		return nil, err
	}
	if t.def.ReadPaths, err = reachPaths(def.Name, "read_paths", def.ReadPaths); err != nil {
		return nil, err
	}
	if t.def.WritePaths, err = reachPaths(def.Name, "write_paths", def.WritePaths); err != nil {
		return nil, err
	}
	return t, nil
}

// reachPaths makes a definition's read_paths or write_paths absolute,
// from the working directory of shelter's process, and refuses a path
// that does not exist: Landlock holds what a path names when the program
// starts, and would skip it.
func reachPaths(tool, key string, paths []string) ([]string, error) {
	var out []string
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, &keyError{tool: tool, key: key, index: i, msg: err.Error()}
		}
		_, err = os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, &keyError{tool: tool, key: key, index: i, msg: fmt.Sprintf("'%s' does not exist; allowed: existing files and directories", printable(abs))}
		case err != nil:
			return nil, &keyError{tool: tool, key: key, index: i, msg: fmt.Sprintf("'%s': %v", printable(abs), unwrapPath(err))}
		}
		if !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// program is what an executable tool runs: path is "" when argv[0] is
// looked up at each call (a path with a slash).
type program struct {
	path string
	argv []string
	env  []string // pins, NAME=VALUE, sorted
	pass []string

	// What the declaration asks of a confined session beyond its hold.
	network     bool
	read, write []string
}

// confinement is what the program asks of the session's hold; nil when
// it asks nothing more. The session adds it to its own, or drops it when
// it does not confine its programs.
func (p program) confinement() *spawn.Confinement {
	if !p.network && len(p.read) == 0 && len(p.write) == 0 {
		return nil
	}
	return &spawn.Confinement{Network: p.network, Read: slices.Clone(p.read), Write: slices.Clone(p.write)}
}

// pinProgram resolves a bare program name once, in the PATH of shelter's
// process; a name with a slash is left to each call.
func pinProgram(tool, name string) (string, error) {
	if strings.Contains(name, "/") {
		return "", nil
	}
	wd, _ := os.Getwd()
	p, err := spawn.LookPath(os.Getenv("PATH"), wd, name)
	if err != nil {
		var le *spawn.LookPathError
		if errors.As(err, &le) && le.Status == 126 {
			return "", &keyError{tool: tool, key: "run", msg: fmt.Sprintf("program '%s' found in PATH but not runnable: %s", name, strings.ToLower(le.Reason))}
		}
		return "", &keyError{tool: tool, key: "run", msg: fmt.Sprintf("program '%s' not found in PATH", name)}
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}

// pins renders a declaration's env, sorted by name.
func pins(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, name := range slices.Sorted(maps.Keys(env)) {
		out = append(out, name+"="+env[name])
	}
	return out
}

// environ is the program's environment: the call's ProgramEnv with the
// pins replacing what it has of theirs.
func (p program) environ(c *kernel.Call) []string {
	base := c.ProgramEnv(p.pass)
	if len(p.env) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(p.env))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, pinned := slices.BinarySearchFunc(p.env, name, func(pin, name string) int {
			n, _, _ := strings.Cut(pin, "=")
			return strings.Compare(n, name)
		}); !pinned {
			out = append(out, kv)
		}
	}
	return append(out, p.env...)
}

func runExecutable(ctx context.Context, c *kernel.Call, p program, input json.RawMessage) error {
	status, err := spawnTool(ctx, c, p, input, c.Stdout)
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
func runWithOutput(ctx context.Context, t *Tool, c *kernel.Call, p program, input json.RawMessage) error {
	captured := &cappedBuffer{max: MaxOutput}
	status, err := spawnTool(ctx, c, p, input, io.MultiWriter(c.Stdout, captured))
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
func spawnTool(ctx context.Context, c *kernel.Call, p program, input json.RawMessage, stdout io.Writer) (int, error) {
	name, argv, path := c.Args[0], p.argv, p.path
	if path == "" {
		// A path with a slash: no PATH is searched.
		var err error
		if path, err = spawn.LookPath("", c.Dir, argv[0]); err != nil {
			status := 127
			var le *spawn.LookPathError
			if errors.As(err, &le) {
				status = le.Status
			}
			fmt.Fprintf(c.Stderr, "%s: %v\n", name, err)
			return status, nil
		}
	}
	stdin := make([]byte, 0, len(input)+1)
	stdin = append(append(stdin, input...), '\n')
	status, err := c.Spawn(ctx, &spawn.Cmd{
		Path:    path,
		Args:    argv,
		Env:     p.environ(c),
		Stdin:   bytes.NewReader(stdin),
		Stdout:  stdout,
		Stderr:  c.Stderr,
		Confine: p.confinement(),
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
