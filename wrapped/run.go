package wrapped

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/creack/pty"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

// Plan is a call parsed, checked and rendered: what would run.
type Plan struct {
	// Verb is the verb that took the call; nil for a help request about
	// the whole command.
	Verb *Verb
	// Path is the pinned executable.
	Path string
	// Argv is the child's argv: the executable, the leads, the verb's name
	// and the call's words in their declared spellings, each path_under
	// word resolved to the absolute path that was checked. Run hands the
	// child exactly this, except for a path_under word that is held (in
	// the sandbox profile unless the declaration says hold: false, and
	// wherever it says hold: true): on Linux the child gets
	// /proc/self/fd/N for it, a descriptor of that path opened beneath its
	// directory (docs/wrapped_command.md).
	Argv []string
	// Help is set when the call asked for help (--help or -h); nothing is
	// to run, and Path and Argv are empty.
	Help bool

	under []checkedPath // the path_under words of Argv
}

// HelpText is what a help request prints: the verb's help, or the
// command's for the root or no verb.
func (p *Plan) HelpText(c *Command) string {
	if p.Verb == nil || p.Verb.root {
		return c.Help()
	}
	return p.Verb.Help()
}

// Plan parses, checks and renders a call: args are the words after the
// command's name, dir the session's working directory (relative path_under
// arguments are resolved against it). The error is one of the refusal
// types of this package, its Error() the line to print.
func (c *Command) Plan(args []string, dir string) (*Plan, error) {
	p := call{cmd: c, args: args, dir: dir}
	return p.run()
}

// CheckStatic judges a call before the script runs; words[0] is the
// command's name. A call with an opaque word is uncertain: its refusals are
// wrapped by kernel.Uncertain and its required parts are not checked.
// Relative path_under arguments are left to execution, when the working
// directory is known.
func (c *Command) CheckStatic(words []kernel.Word) error {
	if len(words) == 0 {
		return nil
	}
	args := make([]string, len(words)-1)
	opaque := make([]bool, len(words)-1)
	for i, w := range words[1:] {
		args[i], opaque[i] = w.Text, w.Opaque
	}
	p := call{cmd: c, args: args, opaque: opaque, static: true}
	_, err := p.run()
	return err
}

// maxJSON bounds the stdout kept for parsing when a verb declares JSON
// output; past it the output counts as truncated and is not parsed.
const maxJSON = 16 << 20

// Run executes one call: parse, check and render, then the pinned
// executable through call.Spawn with the environment of a declared
// program (kernel.Call.ProgramEnv with the declaration's pass_env) plus
// the pins. PATH is never consulted. Refusals print one line and exit 2
// without spawning anything. Whether the session is the sandbox's (its
// opener is confined, kernel.Opener.Confined) decides which path_under
// words are held, for those whose declaration does not say. What the
// verb may reach beyond the session's hold ([Verb.Network],
// [Verb.ReadPaths], [Verb.WritePaths]) goes to call.Spawn in the
// command's Confine, which a session that confines its programs adds to
// its own and one that does not ignores.
func (c *Command) Run(ctx context.Context, call *kernel.Call) error {
	var args []string
	if len(call.Args) > 0 {
		args = call.Args[1:]
	}
	plan, err := c.Plan(args, call.Dir)
	if err != nil {
		return asRefusal(c.name, err)
	}
	if plan.Help {
		_, err := io.WriteString(call.Stdout, plan.HelpText(c))
		return err
	}
	v := plan.Verb
	if v.stdin != StdinPipe && call.StdinPiped {
		return (&StdinError{Scope: v.scope}).refusal()
	}
	// The checked paths to hold (by default in the sandbox profile, where
	// path_under is the boundary) are opened beneath their roots now and
	// held until the child is gone: what the child opens is what was
	// checked. The others reach the child as the checked paths.
	_, confined := call.Opener().Confined()
	held, err := holdUnder(plan, confined)
	if err != nil {
		return asRefusal(v.scope, err)
	}
	defer held.close()
	cmd := &spawn.Cmd{
		Path:       plan.Path,
		Args:       held.argv,
		ExtraFiles: held.files,
		Env:        c.childEnv(call),
		Stdout:     call.Stdout,
		Stderr:     call.Stderr,
		// What the declaration asks beyond the session's hold; the
		// session merges it into its own, or drops it when it does not
		// confine its programs.
		Confine: v.reach.confinement(),
	}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	if v.stdin == StdinPipe {
		cmd.Stdin = call.Stdin
	}
	if c.tty {
		cmd.TTY = &pty.Winsize{Rows: 24, Cols: 80}
	}
	var out *capped
	if v.json {
		out = &capped{limit: maxJSON}
		cmd.Stdout = io.MultiWriter(call.Stdout, out)
	}
	status, err := call.Spawn(ctx, cmd)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(call.Stderr, "%s: %v\n", c.name, unwrapPath(err))
		return kernel.ExitStatus(status)
	}
	if status != 0 {
		return kernel.ExitStatus(status)
	}
	if out != nil && !out.over {
		data := bytes.TrimSpace(out.buf.Bytes())
		var raw json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return fmt.Errorf("declared JSON output, but stdout does not parse: %v", err)
		}
		call.SetData(raw)
	}
	return nil
}

// capped keeps what is written up to limit bytes and notes an overflow.
type capped struct {
	buf   bytes.Buffer
	limit int
	over  bool
}

func (w *capped) Write(p []byte) (int, error) {
	if !w.over && w.buf.Len()+len(p) <= w.limit {
		w.buf.Write(p)
	} else {
		w.over = true
		w.buf = bytes.Buffer{}
	}
	return len(p), nil
}
