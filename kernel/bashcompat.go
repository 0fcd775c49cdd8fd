package kernel

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strconv"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/budget"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/spawn"
)

// The builtins shelter answers itself instead of mvdan/sh's, for bash's
// behaviour, are package bashcompat's; the call handler hands them the
// commands they answer, and the session is their bashcompat.Shell.

// MaxReadBytes bounds what one read or one mapfile element takes from its
// input, so that `read x < /dev/zero` ends (status 1) instead of growing
// without end.
const MaxReadBytes = bashcompat.MaxReadBytes

// replaced answers args when shelter replaces that builtin; a function of
// the name wins unless bypass (builtin NAME, command NAME).
func (s *Session) replaced(ctx context.Context, c *command, args []string, bypass bool) ([]string, bool) {
	b := bashcompat.Lookup(args[0])
	if b == nil || !bypass && s.definedFunc(c, args[0]) {
		return nil, false
	}
	return b(ctx, bashShell{s}, c.hc, args), true
}

// definedFunc reports whether the shell running c has a function name,
// one that eval or source defined included.
func (s *Session) definedFunc(c *command, name string) bool {
	if r := mvdanpriv.HandlerRunner(c.hc); r != nil {
		return r.Funcs[name] != nil
	}
	return c.st.hasFunc(name)
}

// builtinCall answers `builtin NAME ARGS`: shelter's own job control for
// kill, jobs and wait, shelter's replacements, mvdan's for the rest.
func (s *Session) builtinCall(ctx context.Context, c *command, args []string) ([]string, bool) {
	rest := args[1:]
	dashes := len(rest) > 0 && rest[0] == "--" // mvdan/sh's builtin takes -- for a name
	if dashes {
		rest = rest[1:]
		if len(rest) == 0 {
			return bashcompat.StatusArgv(0), true
		}
	}
	if len(rest) == 0 {
		return nil, false
	}
	if next, ok := s.replaced(ctx, c, rest, true); ok {
		return next, true
	}
	if s.tools[rest[0]] != nil && interp.IsBuiltin(rest[0]) {
		out := slices.Clone(rest)
		out[0] = shast.InternalPrefix + rest[0]
		return out, true
	}
	if dashes {
		return append([]string{"builtin"}, rest...), true
	}
	return nil, false
}

// statusWordArgv answers the status word.
func statusWordArgv(args []string) ([]string, bool) {
	if args[0] != shast.StatusWord || len(args) != 2 {
		return nil, false
	}
	n, _ := strconv.Atoi(args[1])
	return bashcompat.StatusArgv(n), true
}

// handlerEnv is the variables of the shell running ctx's command; ok is
// false when ctx is not a handler's (a tool's own goroutine, say).
func handlerEnv(ctx context.Context) (env expand.Environ, ok bool) {
	defer func() {
		if recover() != nil {
			env, ok = nil, false
		}
	}()
	return interp.HandlerCtx(ctx).Env, true
}

// sessionUmask is the mask umask set in the shell that runs ctx's command;
// ok is false when the script never set one.
func sessionUmask(ctx context.Context) (fs.FileMode, bool) {
	env, ok := handlerEnv(ctx)
	if !ok {
		return 0, false
	}
	return bashcompat.Umask(env)
}

// scriptLimits are the limits ulimit set in the shell running ctx's
// command, for spawn.Cmd.Limits; nil for none.
func scriptLimits(ctx context.Context) []spawn.Rlimit {
	env, ok := handlerEnv(ctx)
	if !ok {
		return nil
	}
	return bashcompat.Rlimits(env)
}

// bashShell is the session as the replaced builtins see it.
type bashShell struct{ s *Session }

func (b bashShell) Runner(hc interp.HandlerContext) *interp.Runner {
	return mvdanpriv.HandlerRunner(hc)
}

func (b bashShell) Option(hc interp.HandlerContext, name string) *bool {
	return mvdanpriv.Option(mvdanpriv.HandlerRunner(hc), name)
}

func (b bashShell) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return b.s.readDirHandler(ctx, name)
}

func (b bashShell) Eval(hc interp.HandlerContext, src string) []string { return quietEval(hc, src) }

func (b bashShell) Funcs(hc interp.HandlerContext) map[string]*syntax.Stmt {
	if r := mvdanpriv.HandlerRunner(hc); r != nil {
		return r.Funcs
	}
	return b.s.runner.Funcs
}

func (b bashShell) Alias(hc interp.HandlerContext, name string) (string, bool) {
	r := mvdanpriv.HandlerRunner(hc)
	if !mvdanpriv.ExpandAliases(r) {
		return "", false
	}
	return mvdanpriv.Alias(r, name)
}

func (b bashShell) LocalHere(hc interp.HandlerContext, name string) bool {
	return mvdanpriv.LocalHere(mvdanpriv.HandlerRunner(hc), name)
}

func (b bashShell) Stdout(ctx context.Context, hc interp.HandlerContext) io.Writer {
	return b.s.bounded(ctx, hc.Stdout)
}

func (b bashShell) MemoryExceeded(err error) bool { return budget.IsMemoryError(err) }

func (b bashShell) EvalRefusal(file *syntax.File) (string, bool) {
	return b.s.confinedRefusal(file)
}

func (b bashShell) EvalSymlinks(dir, name string) (string, error) {
	return b.s.rootOpener(dir).EvalSymlinks(name)
}

func (b bashShell) OutsideRoot(dir, name string) error {
	if b.s.root == nil {
		return nil
	}
	if _, err := b.s.rootOpener(dir).EvalSymlinks(name); errors.Is(err, ErrOutsideRoot) {
		return b.s.root.Outside()
	}
	return nil
}

func (b bashShell) ToolKind(name string) (string, bool) {
	t := b.s.tools[name]
	if t == nil {
		return "", false
	}
	return string(t.Kind()), true
}

func (b bashShell) PathPrograms() bool { return b.s.k.cfg.Externals == ExternalsAllowed }

func (b bashShell) AllowedProgram(name string) (string, bool) {
	p, ok := b.s.k.allowed[name]
	return p, ok
}

func (b bashShell) AfterFuncContext(ctx context.Context) context.Context { return afterFuncs(ctx) }

func (b bashShell) CallEnded(ctx context.Context) bool { return endedFor(ctx) }

func (b bashShell) Input(hc interp.HandlerContext, fd int) (io.ReadCloser, error) {
	return b.s.fdInput(hc, fd)
}

func (b bashShell) NoclobberUsed() { b.s.fds.noclobber.Store(true) }
