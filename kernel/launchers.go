package kernel

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel/internal/static"
	"github.com/shelter-sh/shelter/spawn"
)

// Launch is what a launcher (env, timeout, nice, nohup…) asks of the
// processes started under it. It travels with the context a tool's Run
// gets, so launchers nest and add up (`nice timeout 5 nice cmd`): see
// [Call.Launch] for how a launcher's own adds to the one in force, and
// [Call.Launched] for the one in force. The zero value asks nothing.
type Launch struct {
	// Nice is added to shelter's own niceness for each process, right
	// after it starts, best effort as [spawn.Cmd.Nice].
	Nice int
	// NoHUP makes `kill -HUP` pass over the processes; the session still
	// ends them on Close.
	NoHUP bool

	// Deadline, when not zero, is a launcher's own deadline (timeout(1)):
	// when it passes each process's group gets Signal (zero: SIGTERM)
	// and, Grace later, SIGKILL; a zero Grace sends no SIGKILL, a
	// negative one kills at once. A tool run under it gets a context
	// that ends at the deadline. The call's own end never uses these
	// three: its timeout, cancel and Close always send SIGTERM and
	// SIGKILL after the session's grace.
	Deadline time.Time
	Signal   syscall.Signal
	Grace    time.Duration
}

// merge adds a launcher's own asks to the launch in force: niceness adds
// up, NoHUP stays once set, and a deadline replaces the one in force only
// when it is earlier (an outer timeout's stands, with its signal and
// grace).
func (l Launch) merge(add Launch) Launch {
	l.Nice += add.Nice
	l.NoHUP = l.NoHUP || add.NoHUP
	if !add.Deadline.IsZero() && (l.Deadline.IsZero() || add.Deadline.Before(l.Deadline)) {
		l.Deadline, l.Signal, l.Grace = add.Deadline, add.Signal, add.Grace
	}
	return l
}

type launchKey struct{}

func launchOf(ctx context.Context) Launch {
	l, _ := ctx.Value(launchKey{}).(Launch)
	return l
}

// applyLaunch fills in what the session and the launchers decide for a
// child process: the kill signal and grace, niceness, the umask and the
// limits the script set (in place before the child's first instruction,
// see [spawn.Cmd.Limits]), the call's terminal for a foreground
// command, the operating system's hold on it (see holdCmd), and the
// bookkeeping that lets `kill` and `jobs` find it. Fields the caller
// already set win. It fails, changing nothing that outlives cmd, only
// when the hold cannot be had.
func (s *Session) applyLaunch(ctx context.Context, cmd *spawn.Cmd) error {
	l := launchOf(ctx)
	if cmd.Grace == 0 {
		cmd.Grace = s.k.cfg.KillGrace
	}
	if cmd.Deadline.IsZero() && !l.Deadline.IsZero() {
		cmd.Deadline, cmd.DeadlineSignal, cmd.DeadlineGrace = l.Deadline, l.Signal, l.Grace
	}
	if cmd.Nice == 0 {
		cmd.Nice = l.Nice
	}
	if mask, ok := sessionUmask(ctx); ok && cmd.Umask == nil {
		cmd.Umask = &mask
	}
	if cmd.Limits == nil {
		cmd.Limits = scriptLimits(ctx)
	}
	if err := s.holdCmd(cmd); err != nil {
		return err
	}
	s.foreground(ctx, cmd)
	job := jobOf(ctx)
	var call *callState
	if job == nil {
		call = s.callOf(ctx)
	}
	started, exited := cmd.Started, cmd.Exited
	cmd.Started = func(pid int) {
		s.jobs.Started(job, pid, l.NoHUP)
		if call != nil {
			call.bg.note(ctx, pid)
		}
		if started != nil {
			started(pid)
		}
	}
	cmd.Exited = func(pid int) {
		s.jobs.Exited(job, pid)
		if exited != nil {
			exited(pid)
		}
	}
	return nil
}

// LaunchOptions are how [Call.Launch] runs a command.
type LaunchOptions struct {
	// Env is the command's environment, "NAME=VALUE" each; nil means the
	// call's own (an empty, non-nil slice is an empty environment).
	Env []string
	// Stdin is the command's input; nil means none (a closed stdin).
	// Pass the call's Stdin to hand it on.
	Stdin io.Reader
	// Stdout and Stderr receive what the command prints; nil discards it.
	Stdout, Stderr io.Writer
	// Launch is what the launcher asks of the command's processes, added
	// to the launch in force (see [Launch]).
	Launch Launch
}

// Launch runs argv as a launcher does (env, timeout, xargs, or one an
// embedder writes): through the session's own dispatch, so the guard, the
// session's tools and the external-command policy apply exactly as to a
// command of the script, and a launcher name that is no registered tool
// is refused, never taken from PATH. The shell's echo, printf, test, [,
// true, false, : and pwd run in process when no tool has their name, so
// that a session without external programs still has them; shell
// functions are not seen, as by a program env starts. The command runs
// in the call's working directory, under opts.Launch added to the launch
// in force.
//
// Launch returns the command's status (127 not found or refused, 126 not
// executable, 128+N killed by signal N, 2 refused by the guard or a
// tool). The error is non-nil only when ctx ended; the launcher should
// then return it. Launch panics if argv is empty.
func (c *Call) Launch(ctx context.Context, argv []string, opts LaunchOptions) (int, error) {
	if len(argv) == 0 {
		panic("kernel: Call.Launch with an empty argv")
	}
	if opts.Launch != (Launch{}) {
		ctx = context.WithValue(ctx, launchKey{}, launchOf(ctx).merge(opts.Launch))
	}
	env := opts.Env
	if env == nil {
		env = c.Env
	}
	stdout, stderr := opts.Stdout, opts.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	child := &Call{
		Args:   argv,
		Stdin:  opts.Stdin,
		Stdout: stdout,
		Stderr: stderr,
		Dir:    c.Dir,
		Env:    env,
	}
	if opts.Stdin != nil {
		child.StdinPiped = opts.Stdin != c.Stdin || c.StdinPiped
	}
	s := c.session
	if s.tools[argv[0]] == nil && shellUtility(argv[0]) {
		return s.runShellUtility(ctx, child)
	}
	return s.runCommand(ctx, child)
}

// Launched returns the launch in force for the call: what the launchers
// around it asked (see [Launch]). nice prints its niceness from it.
func (c *Call) Launched() Launch { return c.launch }

// KillGrace is the session's time between SIGTERM and SIGKILL when it
// ends a process ([Config.KillGrace], or spawn's default).
func (c *Call) KillGrace() time.Duration { return c.session.grace() }

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
	forgetResetVars(ctx, r, slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "HOME=") }))
	return r, nil
}

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

// launchDeadlineCancel gives what runs in the process under a launcher's
// deadline (a tool, a shebang-less script) a context that ends at it.
func launchDeadlineCancel(ctx context.Context) (context.Context, context.CancelFunc) {
	if l := launchOf(ctx); !l.Deadline.IsZero() {
		return context.WithDeadline(afterFuncs(ctx), l.Deadline)
	}
	return ctx, func() {}
}

// A Launcher is a tool that runs a command named in its words, as env,
// timeout and xargs do. The guard and the static pass look through it: a
// command a harness tool replaces is refused behind it, and the launched
// command's tool gets its static check. A launcher's Run and its Unwrap
// should read the words with one grammar, so that what the static pass
// judges is what runs; Run should start the command with [Call.Launch],
// so that every policy applies to it at execution too.
type Launcher interface {
	Tool
	// Unwrap finds the command a call launches; words[0] is the
	// launcher's name as typed. ok is false when the words launch
	// nothing (env printing the environment, a flag the launcher
	// refuses). An opaque word where a flag may stand ends the reading:
	// the launched command then starts at it.
	Unwrap(words []Word) (launched Launched, ok bool)
}

// Launched is the command a [Launcher]'s words launch.
type Launched struct {
	// Words are the launched command's words. A launcher that adds words
	// at execution (xargs) ends them with an opaque word.
	Words []Word
	// Assigns name the variables the launcher sets for the command (env
	// NAME=VALUE), checked against the guard's variable entries.
	Assigns []string
}

// launcherNames are the commands a session never takes from PATH: each
// runs another command, which would then escape the guard, the tools and
// the external policy. They run only as a registered tool of that name.
var launcherNames = []string{"chrt", "env", "flock", "ionice", "nice", "nohup", "setsid", "stdbuf", "taskset", "timeout", "xargs"}

// LauncherNames returns the names a session runs only as a registered
// tool, sorted: env, timeout, nice, nohup, xargs, setsid, stdbuf, ionice,
// taskset, chrt and flock. A call of one of them, by name or by a path
// (/usr/bin/env), that no tool of that name answers is refused with an
// [*UnregisteredLauncherError], in the static pass and at execution, in
// every profile. Package builtins provides all of them.
func LauncherNames() []string { return slices.Clone(launcherNames) }

func isLauncherName(name string) bool {
	switch name {
	case "chrt", "env", "flock", "ionice", "nice", "nohup", "setsid", "stdbuf", "taskset", "timeout", "xargs":
		return true
	}
	return false
}

// UnregisteredLauncherError is the refusal of a launcher name (see
// [LauncherNames]) that no registered tool answers: the name itself when
// no tool has it, or a path to a program of that name.
type UnregisteredLauncherError struct {
	// Command is the command's first word as typed: "env", "/usr/bin/env".
	Command string
	// Registered is true when a tool of the launcher's name exists, and
	// Command spelled the launcher as a path.
	Registered bool
}

// Error is the line: "shelter: 'env' is a launcher and no launcher of
// that name is registered, so it is not taken from PATH; register
// builtins.Launchers() in Config.Tools", or for a path when the tool is
// registered, "shelter: '/usr/bin/env' is a launcher, run only as
// shelter's own; allowed: env".
func (e *UnregisteredLauncherError) Error() string {
	name := filepath.Base(e.Command)
	if e.Registered {
		return refusal.Line("shelter", refusal.Quote(e.Command)+" is a launcher, run only as shelter's own", []string{name})
	}
	return fmt.Sprintf("shelter: '%s' is a launcher and no launcher of that name is registered, so it is not taken from PATH; register builtins.Launchers() in Config.Tools", static.SingleLine(e.Command))
}

// launcherRefusal refuses a command whose name is a launcher's that no
// tool answers; tools[name] is known to be nil.
func launcherRefusal(tools map[string]Tool, name string) (*UnregisteredLauncherError, bool) {
	base := static.CommandBase(name)
	if !isLauncherName(base) {
		return nil, false
	}
	return &UnregisteredLauncherError{Command: name, Registered: base != name && tools[base] != nil}, true
}
