package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/spawn"
)

// Kind says what sort of command a [Tool] is.
type Kind string

const (
	Builtin Kind = "builtin" // an in-process command
	Wrapped Kind = "wrapped" // a declared program (package wrapped)
	Harness Kind = "harness" // a schema-described tool (package harness)
)

// A Tool is a command the kernel finds before $PATH: a builtin, a wrapped
// command or a harness tool. Tools are registered in [Config.Tools] or
// [SessionOptions.Tools]; a tool may also implement [StaticChecker] and
// [Replacer].
//
// A Tool is shared by every session of a kernel and must be safe for
// concurrent use.
type Tool interface {
	// Name is the command name as typed in the shell.
	Name() string
	Kind() Kind
	// Description is one or a few sentences for agents and for help.
	Description() string
	// InputSchema is a JSON Schema object describing the tool's input.
	InputSchema() json.RawMessage
	// Run executes one call. A nil error is status 0; an [ExitStatus] is
	// that status; any other error is printed as "NAME: ERROR" on the
	// call's stderr and is status 1.
	Run(ctx context.Context, call *Call) error
}

// A StaticChecker judges a call before anything of the script runs.
// Words that are not known before execution are [Word.Opaque]. CheckStatic
// returns nil when the call may run, a [*Refusal] or any error when it is
// certain to be refused, and an error wrapped by [Uncertain] when it can
// only warn. At execution the kernel does not call CheckStatic again: Run
// sees the expanded words and must apply the same checks itself.
type StaticChecker interface {
	CheckStatic(words []Word) error
}

// A Replacer names the shell commands a tool is the preferred way to do,
// each as typed ("journalctl", "systemctl restart"). The guard refuses
// those commands and names the tool instead; an entry of one upper-case
// word names an environment variable whose assignment is refused.
type Replacer interface {
	Replaces() []string
}

// Word is one word of a command as the static pass sees it: its Text
// when it is literal, or Opaque when its value is only known at
// execution (an expansion, a command substitution, a glob).
type Word = shast.Word

// Uncertain marks err as a warning: the static pass could not be sure.
func Uncertain(err error) error { return &uncertainError{err} }

type uncertainError struct{ err error }

func (e *uncertainError) Error() string { return e.err.Error() }
func (e *uncertainError) Unwrap() error { return e.err }

// ExitStatus is an error that carries a command's exit status.
type ExitStatus uint8

func (s ExitStatus) Error() string { return fmt.Sprintf("exit status %d", uint8(s)) }

// Refusal is a tool's refusal of a call: the command, what was wrong with
// the call and what is allowed instead. A tool returning it from Run (or
// from CheckStatic) has its line printed on stderr and the call ends with
// status 2. Every refusal shelter makes is one of these lines, in one
// voice (docs/embedding.md, "Tools").
type Refusal struct {
	// Command is the command refused, as the line starts: "grep",
	// "git log".
	Command string
	// What says what was wrong, with the offending word in [Quote]:
	// "unknown flag '--colour'".
	What string
	// Allowed is what the command takes instead: names, or short
	// descriptions of a form ("an integer from 0 to 7"). The line lists
	// them sorted; nil is "(none)".
	Allowed []string
}

// Error is the refusal's one line: "command: what; allowed: pool", the
// pool rendered by [Pool].
func (r *Refusal) Error() string { return refusal.Line(r.Command, r.What, r.Allowed) }

// Pool renders the names a refusal allows: sorted, without repeats,
// joined by ", ", or "(none)" when there are none.
func Pool(names []string) string { return refusal.Pool(names) }

// Quote renders a word a refusal names in single quotes, with control
// characters escaped and cut after 80 characters, so that the line stays
// one line whatever the caller typed.
func Quote(word string) string { return refusal.Quote(word) }

// Caller is who is calling: set by the embedder for a session and handed
// to every tool, never taken from a tool's input.
type Caller struct {
	SessionID string `json:"session_id"`
	Agent     string `json:"agent,omitempty"`
	Workspace string `json:"workspace,omitempty"`
}

// Call is one invocation of a [Tool].
type Call struct {
	// Args is the argv; Args[0] is the tool's name as called.
	Args []string
	// Stdin is the call's input, nil when it has none (a closed stdin).
	Stdin io.Reader
	// Stdout and Stderr receive the tool's output.
	Stdout, Stderr io.Writer
	// Dir is the session's working directory.
	Dir string
	// Env is the session's exported environment, "NAME=VALUE" each.
	Env []string
	// Caller identifies who is calling.
	Caller Caller
	// StdinPiped is true when Stdin is a pipe or a file the script gave:
	// a tool that reads no input refuses it.
	StdinPiped bool

	session *Session
	data    *callState // nil unless the call's stdout is the result's
	self    *job       // the job a yielded call became, which it does not wait for
	launch  Launch     // the launch in force, see [Call.Launched]
	// extraFiles are the shell's descriptors above 2, entry i being
	// descriptor 3+i, which a program the call starts inherits.
	extraFiles []*os.File

	// refusedPath is set when the call's opener refused a name as
	// outside the root: a failure of the call is then a refusal. A
	// pointer, so that a copy of the Call (a tool may make one) reports
	// to the same call.
	refusedPath *atomic.Bool
}

// Exec runs argv through the session's own dispatch: tools, the guard and
// the external-command policy apply, as for a command of the script. Like
// a program that env or xargs starts, it does not see shell functions. It
// returns the command's status.
func (c *Call) Exec(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return c.session.dispatch(ctx, c, argv, stdin, stdout, stderr)
}

// Spawn runs a child process under the session's discipline: its own
// process group, the kill signal and grace (as a launcher such as timeout
// set them), the operating system's hold of a confining session
// ([Config.Confine]), and the bookkeeping that lets `jobs` and `kill`
// find it. Path must already be resolved; Env and Dir default to the
// call's own when empty. cmd.Confine names what the program needs beyond
// the session's hold (a declaration's network or paths): it is added to
// the session's when the session confines its programs, and ignored
// otherwise. Where the host cannot confine as the session asks, nothing
// starts and Spawn returns status 126 and a [*HoldError].
func (c *Call) Spawn(ctx context.Context, cmd *spawn.Cmd) (int, error) {
	if cmd.Env == nil {
		cmd.Env = c.Env
	}
	if cmd.Dir == "" {
		cmd.Dir = c.Dir
	}
	if c.session != nil {
		if err := c.session.needTmp(c.Stderr); err != nil {
			return 126, fmt.Errorf("temporary directory: %w", err)
		}
		if err := c.session.applyLaunch(ctx, cmd); err != nil {
			return 126, err
		}
		defer c.session.childStreams(ctx, cmd)()
	}
	return spawn.Run(ctx, cmd)
}

// SetData records the JSON value the call produced. It becomes
// [Result.Data] when this command's stdout is the call's own (not a pipe,
// not a substitution) and no later such command runs.
func (c *Call) SetData(v json.RawMessage) {
	if c.data != nil {
		c.data.setData(v)
	}
}

// Getenv returns the value of an exported variable of the session.
func (c *Call) Getenv(name string) string {
	v, _ := c.lookup(name)
	return v
}

// Tools returns the tools the call's session can run, sorted by name:
// the kernel's and the session's own.
func (c *Call) Tools() []Tool { return sortedTools(c.session.tools) }
