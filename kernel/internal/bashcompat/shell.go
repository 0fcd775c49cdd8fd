package bashcompat

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Shell is what the builtins need of the session that runs them. The
// kernel's session implements it; each method says what a builtin would
// otherwise have to reach into the kernel or into mvdan/sh for.
type Shell interface {
	// Runner is the shell or subshell that runs hc's command, nil if it
	// cannot be found: mvdan/sh keeps it in an unexported field.
	Runner(hc interp.HandlerContext) *interp.Runner

	// Option is the state of the shell option name, one of those
	// mvdan/sh implements, in the shell that runs hc's command; a
	// builtin may also set it. It is nil if it cannot be found.
	Option(hc interp.HandlerContext, name string) *bool

	// ReadDir is the entries of the directory name, an absolute path,
	// read through the session's opener (beneath its root, in a
	// confined session).
	ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error)

	// Eval is the argv that evaluates src, shelter's own source, in the
	// caller's scope (an eval), out of set -x's trace.
	Eval(hc interp.HandlerContext, src string) []string

	// Funcs is the functions hc's command sees; the session's when its
	// runner cannot be found.
	Funcs(hc interp.HandlerContext) map[string]*syntax.Stmt

	// Alias is the value of hc's shell's alias name, as `alias name`
	// prints it; ok is false when there is none or aliases do not
	// expand (shopt expand_aliases is off), as bash's type has it.
	Alias(hc interp.HandlerContext, name string) (value string, ok bool)

	// LocalHere reports whether name is a local variable of the function
	// hc's command runs in, made there rather than by a caller.
	LocalHere(hc interp.HandlerContext, name string) bool

	// Stdout is where a builtin writes its output: hc.Stdout, counted
	// against the call's memory budget when the shell holds it in
	// memory (a command substitution's capture).
	Stdout(ctx context.Context, hc interp.HandlerContext) io.Writer

	// MemoryExceeded reports whether err, from a write to Stdout, is the
	// memory budget ending the call, which says why itself.
	MemoryExceeded(err error) bool

	// EvalRefusal is the line that refuses what file, the text of an
	// eval, may not run in this session (process substitution in the
	// sandbox); refused is false when it may run.
	EvalRefusal(file *syntax.File) (line string, refused bool)

	// EvalSymlinks is name, relative to dir, with its symbolic links
	// resolved through the session's opener: beneath its root, in a
	// confined session.
	EvalSymlinks(dir, name string) (string, error)

	// OutsideRoot is the error that refuses name, relative to dir, in a
	// confined session whose root it resolves outside of; nil when the
	// session may go there.
	OutsideRoot(dir, name string) error

	// ToolKind is the kind ("builtin", "wrapped", "harness") of the
	// session's tool called name; ok is false when there is none.
	ToolKind(name string) (kind string, ok bool)

	// PathPrograms reports whether the session may run any program found
	// on PATH; when not, it runs the allowed ones alone (AllowedProgram).
	PathPrograms() bool

	// AllowedProgram is the program an allowed name resolved to when the
	// kernel was built; ok is false for a name not allowed.
	AllowedProgram(name string) (path string, ok bool)

	// AfterFuncContext is ctx for context.AfterFunc: a registration on it
	// costs the call a list entry, not a goroutine.
	AfterFuncContext(ctx context.Context) context.Context

	// CallEnded reports whether the call or job that ctx belongs to has
	// ended.
	CallEnded(ctx context.Context) bool

	// Input is descriptor fd of the shell running hc's command, for
	// read -u and mapfile -u: a copy the caller closes, or the error of
	// a descriptor that is not open for reading.
	Input(hc interp.HandlerContext, fd int) (io.ReadCloser, error)

	// NoclobberUsed tells the session that set -C ran: from then on its
	// opens for > look at the shell's noclobber option ([HeldOption]).
	NoclobberUsed()
}

// fdInput is the input of -u VALUE: nil for 0 (the command's stdin);
// ok is false, the error said, for a descriptor not open for reading.
func fdInput(sh Shell, hc interp.HandlerContext, name, value string) (in io.ReadCloser, ok bool) {
	fd, err := strconv.Atoi(value)
	if err != nil || fd < 0 {
		fmt.Fprintf(hc.Stderr, "%s: %s: invalid file descriptor specification\n", name, value)
		return nil, false
	}
	if fd == 0 {
		return nil, true
	}
	in, err = sh.Input(hc, fd)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s: %d: invalid file descriptor: %v\n", name, fd, err)
		return nil, false
	}
	return in, true
}
