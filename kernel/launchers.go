package kernel

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/spawn"
)

// launcherBuiltins are env, timeout, nohup, nice and xargs, and the job
// control builtins jobs, wait and kill. The launchers run their command
// through the session's own dispatch, so the guard, tools and the external
// policy apply to what they launch exactly as to the script's own words.
func launcherBuiltins() []Tool {
	return []Tool{
		envBuiltin,
		timeoutBuiltin,
		nohupBuiltin,
		niceBuiltin,
		xargsBuiltin,
		jobsBuiltin,
		waitBuiltin,
		killBuiltin,
	}
}

// launch is what launchers ask of the processes started under them. It
// travels in the context, so nested launchers add up (`nice timeout 5 nice
// cmd`) and a shebang-less script run under one passes it on.
type launch struct {
	nice  int  // added to shelter's own niceness
	nohup bool // kill -HUP skips the processes

	// A launcher's own deadline (timeout(1)), with its signal and the
	// grace before SIGKILL (zero: none follows). The call's end never
	// uses them: its timeout, cancel and Close always send SIGTERM and
	// SIGKILL after the session's grace.
	deadline time.Time
	signal   syscall.Signal
	grace    time.Duration
}

// withDeadline narrows a launch to a deadline; an earlier one already set
// (an outer timeout) stands, with its signal and grace.
func (l *launch) withDeadline(at time.Time, sig syscall.Signal, grace time.Duration) {
	if !l.deadline.IsZero() && !at.Before(l.deadline) {
		return
	}
	l.deadline, l.signal, l.grace = at, sig, grace
}

type launchKey struct{}

func launchOf(ctx context.Context) launch {
	l, _ := ctx.Value(launchKey{}).(launch)
	return l
}

func withLaunch(ctx context.Context, change func(*launch)) context.Context {
	l := launchOf(ctx)
	change(&l)
	return context.WithValue(ctx, launchKey{}, l)
}

// applyLaunch fills in what the session and the launchers decide for a
// child process: the kill signal and grace, niceness, the umask and the
// limits the script set (in place before the child's first instruction,
// see [spawn.Cmd.Limits]), the call's terminal for a foreground
// command, and the bookkeeping that lets `kill` and `jobs` find it.
// Fields the caller already set win.
func (s *Session) applyLaunch(ctx context.Context, cmd *spawn.Cmd) {
	l := launchOf(ctx)
	if cmd.Grace == 0 {
		cmd.Grace = s.k.cfg.KillGrace
	}
	if cmd.Deadline.IsZero() && !l.deadline.IsZero() {
		cmd.Deadline, cmd.DeadlineSignal, cmd.DeadlineGrace = l.deadline, l.signal, l.grace
	}
	if cmd.Nice == 0 {
		cmd.Nice = l.nice
	}
	if mask, ok := sessionUmask(ctx); ok && cmd.Umask == nil {
		cmd.Umask = &mask
	}
	if cmd.Limits == nil {
		cmd.Limits = scriptLimits(ctx).rlimits()
	}
	s.foreground(ctx, cmd)
	job := jobOf(ctx)
	var call *callState
	if job == nil {
		call = s.call.Load()
	}
	started, exited := cmd.Started, cmd.Exited
	cmd.Started = func(pid int) {
		s.jobs.started(job, pid, l.nohup)
		if call != nil {
			call.bg.note(ctx, pid)
		}
		if started != nil {
			started(pid)
		}
	}
	cmd.Exited = func(pid int) {
		s.jobs.exited(job, pid)
		if exited != nil {
			exited(pid)
		}
	}
}

// launchCall runs argv for a launcher with the environment env: like
// [Call.Exec], but env may differ from the caller's. The error is non-nil
// only when ctx ended.
func (c *Call) launchCall(ctx context.Context, argv, env []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	child := &Call{
		Args:   argv,
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: stderr,
		Dir:    c.Dir,
		Env:    env,
	}
	if stdin != nil {
		child.StdinPiped = stdin != c.Stdin || c.StdinPiped
	}
	s := c.session
	if s.tools[argv[0]] == nil && shellUtility(argv[0]) {
		return s.runShellUtility(ctx, child)
	}
	return s.runCommand(ctx, child)
}

// shellUtility names the shell builtins a launcher runs itself rather than
// from PATH: they only print or test, and in a session without external
// programs `xargs` still has its echo.
func shellUtility(name string) bool {
	switch name {
	case "echo", "printf", "true", "false", "test", "[", ":", "pwd":
		return true
	}
	return false
}

// childRunner is a runner wired to the session's handlers for what runs
// like a child process (a shebang-less script, a launched builtin): it
// sees env only. Like the session, it takes no HOME from the host.
func (s *Session) childRunner(ctx context.Context, env []string, dir string) (*interp.Runner, error) {
	r, err := s.newRunner(expand.ListEnviron(env...), dir)
	if err != nil {
		return nil, err
	}
	r.Reset()
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "HOME=") }) {
		r.Run(ctx, unsetChildHome)
	}
	return r, nil
}

var unsetChildHome = mustParse("unset HOME")

// runShellUtility runs one shell builtin in a runner wired to the
// session's handlers.
func (s *Session) runShellUtility(ctx context.Context, c *Call) (int, error) {
	r, err := s.childRunner(ctx, c.Env, c.Dir)
	if err != nil {
		return 1, err
	}
	var stdin io.Reader = s.devnull
	if c.Stdin != nil {
		stdin = c.Stdin
	}
	if err := interp.StdIO(stdin, c.Stdout, c.Stderr)(r); err != nil {
		return 1, err
	}
	words := make([]*syntax.Word, len(c.Args))
	for i, a := range c.Args {
		words[i] = &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.Lit{Value: dqEscape(a)}}}}}
	}
	err = r.Run(ctx, &syntax.File{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: words}}}})
	if ctx.Err() != nil {
		return 1, ctx.Err()
	}
	return exitCode(err), nil
}

// launched turns the status of a launched command into the launcher's
// result: ctx's error when the call ended, so that the script stops.
func launched(ctx context.Context, status int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if status == 0 {
		return nil
	}
	return ExitStatus(status)
}

// unknownFlag is the refusal of a flag a builtin does not take.
func unknownFlag(cmd, flag string, allowed ...string) error {
	return &Refusal{Line: fmt.Sprintf("%s: unknown flag '%s'; allowed: %s", cmd, flag, Pool(allowed))}
}

// missingValue is the refusal of a flag given without its value.
func missingValue(cmd, flag, what string) error {
	return &Refusal{Line: fmt.Sprintf("%s: flag '%s' needs %s", cmd, flag, what)}
}

// isFlag reports whether a word is an option rather than an operand.
func isFlag(w string) bool { return len(w) > 1 && w[0] == '-' }

// flagValue takes the value of a flag that has one, attached (-n5,
// --max-args=5) or in the next word. It returns the value, how many words
// were used, and whether one was there.
func flagValue(args []string, i int, short, long string) (string, int, bool) {
	a := args[i]
	switch {
	case long != "" && strings.HasPrefix(a, long+"="):
		return a[len(long)+1:], 1, true
	case a == short || a == long:
		if i+1 < len(args) {
			return args[i+1], 2, true
		}
		return "", 1, false
	case short != "" && strings.HasPrefix(a, short):
		return a[len(short):], 1, true
	}
	return "", 0, false
}

// launchDeadlineCancel gives what runs in the process under a launcher's
// deadline (a tool, a shebang-less script) a context that ends at it.
func launchDeadlineCancel(ctx context.Context) (context.Context, context.CancelFunc) {
	if l := launchOf(ctx); !l.deadline.IsZero() {
		return context.WithDeadline(ctx, l.deadline)
	}
	return ctx, func() {}
}
