package kernel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/budget"
	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/spawn"
)

// callHandler sees every simple command, builtins and functions included,
// after expansion. It reroutes the names shelter answers itself and resets
// the call's data, which belongs to the last command only.
func (s *Session) callHandler(ctx context.Context, args []string) ([]string, error) {
	c := s.commandOf(ctx)
	if args[0] == shast.CmdGlobCall {
		// The patterns that rewrite.FailGlob marked, then the command.
		expanded, ok := bashcompat.GlobArgs(ctx, bashShell{s}, c.hc, rewrite.GlobMarker, args[1:])
		if !ok {
			return []string{"exit", "1"}, nil // a non-interactive bash ends there
		}
		args = expanded
	}
	if c.job != nil && s.jobs.Killed(c.job) {
		// kill ended the job: it runs nothing more.
		return nil, errJobKilled
	}
	if args[0] != "" && args[0][0] == 0 {
		if next, ok := s.fdCall(c.hc, c.job, args); ok {
			return next, nil
		}
	}
	if next, ok := s.containCall(ctx, &c, args); ok {
		return next, nil
	}
	name := args[0]
	switch name {
	case "hash":
		s.paths.Store(nil)
	case "kill":
		if c.st != nil && c.job == nil {
			// kill "$!" of a nested background: its pids, then kill as usual.
			if pids, ok := c.st.bg.killArgs(ctx, c.hc, args); ok {
				args = pids
			}
		}
	}
	if parsesLater(args) {
		// What it parses may hold a process substitution, which the
		// static pass did not see.
		s.tmp.Ensure()
	}
	if st := c.st.forResult(c.hc.Stdout); st != nil {
		st.setData(nil)
	}
	if s.underscore.Load() {
		setUnderscore(c.hc, args)
	}
	if s.commands.Load() {
		traceCommand(c.hc, args)
	}
	if s.callStack.Load() {
		if next, ok := s.stackCall(c.hc, args); ok {
			return next, nil
		}
	}
	if next, ok := statusWordArgv(args); ok {
		return next, nil
	}
	if (name == "builtin" || name == "command") && s.definedFunc(&c, name) {
		// A function named builtin or command wins, as any function does.
		return args, nil
	}
	if name == "builtin" {
		if next, ok := s.builtinCall(ctx, &c, args); ok {
			return next, nil
		}
		return args, nil
	}
	if name == "command" && len(args) > 1 && !isFlag(args[1]) {
		if next, ok := s.replaced(ctx, &c, args[1:], true); ok {
			return next, nil
		}
	}
	if name == "command" && len(args) > 1 {
		switch {
		case isFlag(args[1]):
			return bashcompat.Command(ctx, bashShell{s}, c.hc, args), nil
		case interp.IsBuiltin(args[1]) && s.tools[args[1]] != nil:
			// `command jobs` would reach mvdan's builtin directly.
			args, name = args[1:], args[1]
		default:
			return args, nil
		}
	}
	if next, ok := s.replaced(ctx, &c, args, false); ok {
		return next, nil
	}
	if name == "wait" {
		own, procSubst := procSubstWait(args)
		if procSubst || !s.waitsForJobs(ctx, args) {
			// mvdan's own wait still serves the background work of
			// functions and subshells, and process substitutions.
			if procSubst {
				args = own
			}
			if !s.ownWait(ctx, c.hc, args) {
				return bashcompat.StatusArgv(128 + int(syscall.SIGTERM)), nil
			}
			return args, nil
		}
	}
	if interp.IsBuiltin(name) && s.tools[name] != nil {
		out := slices.Clone(args)
		out[0] = shast.InternalPrefix + name
		return out, nil
	}
	return args, nil
}

// command is what the call handler finds in a command's context, looked
// up once: each lookup walks the context's chain of parents, and a plain
// builtin such as echo needs them all.
type command struct {
	hc  interp.HandlerContext
	st  *callState     // the call it belongs to (callOf); nil between calls
	job *job           // the job running it (jobOf); nil in a call
	b   *budget.Budget // its call's or job's; nil for none, a negative limit for no memory bound
}

// commandOf finds them all in one walk of ctx's chain: the budget context
// of the command's call or job holds each (no call or job puts a job or a
// call on the chain above its own budget context).
func (s *Session) commandOf(ctx context.Context) command {
	c := command{hc: interp.HandlerCtx(ctx)}
	bc, ok := ctx.Value(budgetContextKey{}).(*budgetContext)
	if !ok {
		c.st, c.job = s.callOf(ctx), jobOf(ctx)
		return c
	}
	c.st, c.job, c.b = bc.call, bc.job, &bc.b
	if c.st == nil {
		c.st = s.call.Load()
	}
	return c
}

// execHandler runs every simple command that is neither a function nor a
// shell builtin. It is the only exec handler: mvdan's default is never
// reached.
func (s *Session) execHandler(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	if name, ok := strings.CutPrefix(args[0], shast.InternalPrefix); ok {
		switch name {
		case "status":
			return statusOf(args[1:])
		case "sigpipe":
			return bashcompat.SigpipeExit(ctx, hc)
		case "quiet":
			return quietEvalCall(ctx, hc, args)
		case "source":
			return s.sourceCall(ctx, hc, args)
		}
		args = slices.Clone(args)
		args[0] = name
	}
	c := &Call{
		Args:   args,
		Stdout: s.bounded(ctx, hc.Stdout),
		Stderr: hc.Stderr,
		Dir:    hc.Dir,
		Env:    childEnv(hc.Env, hc.Dir),
	}
	c.Stdin, c.StdinPiped = s.commandInput(hc.Stdin)
	var release func()
	c.extraFiles, release = s.childFiles(ctx, hc)
	defer release()
	status, err := s.runCommand(ctx, c)
	if err != nil {
		return err
	}
	if status == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(status))
}

// commandInput classifies a command's stdin: none when it is /dev/null;
// piped when the script gave it (a pipe or a redirect), as opposed to the
// input the whole call inherits.
func (s *Session) commandInput(stdin io.Reader) (in io.Reader, piped bool) {
	f, ok := stdin.(*os.File)
	if !ok || f == nil || f == s.devnull {
		return nil, false
	}
	st := s.call.Load()
	return f, st == nil || f != st.stdin
}

// dispatch runs argv for a launcher (env, timeout, xargs…): the guard,
// tools and the external policy apply, as for any command of the script.
func (s *Session) dispatch(ctx context.Context, parent *Call, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &Call{
		Args:       argv,
		Stdin:      stdin,
		Stdout:     stdout,
		Stderr:     stderr,
		Dir:        parent.Dir,
		Env:        parent.Env,
		StdinPiped: stdin != nil && parent.StdinPiped,
		extraFiles: parent.extraFiles,
	}
	status, err := s.runCommand(ctx, c)
	if err != nil && status == 0 {
		return 1
	}
	return status
}

// runCommand is the one path every command takes after the shell: guard,
// tool, a launcher no tool answers (refused), external policy, PATH,
// spawn. A non-nil error means ctx ended.
func (s *Session) runCommand(ctx context.Context, c *Call) (int, error) {
	c.session = s
	c.Caller = s.caller
	c.data = s.callOf(ctx).forResult(c.Stdout)
	c.self = s.callOf(ctx).yieldedJob()
	name := c.Args[0]
	if line, ok := s.guard.Refuse(c.Args); ok {
		fmt.Fprintln(c.Stderr, line)
		return 2, nil
	}
	if t := s.tools[name]; t != nil {
		if _, launches := t.(Launcher); !launches {
			if j := jobOf(ctx); j != nil {
				// `sleep 5 &` in the sandbox: no process is coming to
				// give the job its pid.
				j.RanInProcess()
			}
		}
		// A tool may use $TMPDIR as it likes (a harness tool's program).
		if err := s.needTmp(c.Stderr); err != nil {
			fmt.Fprintf(c.Stderr, "shelter: %s: temporary directory: %v\n", name, err)
			return 126, nil
		}
		return s.runTool(ctx, t, c)
	}
	if refusal, ok := launcherRefusal(s.tools, name); ok {
		fmt.Fprintln(c.Stderr, refusal.Error())
		return 127, nil
	}
	line, path, refused := s.externalRefusal(name, c)
	if refused {
		fmt.Fprintln(c.Stderr, line)
		if !slices.Contains(s.k.cfg.AllowExternal, filepath.Base(name)) {
			s.noteOperator(ctx, CodeExternal, externalHintLine(name))
		}
		return 127, nil
	}
	if path != "" {
		// An allowed external is a declared program.
		c.Env = c.ProgramEnv(nil)
		return s.spawn(ctx, c, path)
	}
	path, err := s.lookPath(c.Getenv("PATH"), c.Dir, name)
	if err != nil {
		if line, ok := goneDirLine(name, c.Dir); ok {
			fmt.Fprintln(c.Stderr, line)
			return 127, nil
		}
		var le *spawn.LookPathError
		if errors.As(err, &le) {
			fmt.Fprintf(c.Stderr, "shelter: %s\n", le)
			return le.Status, nil
		}
		fmt.Fprintf(c.Stderr, "shelter: %s: %v\n", name, err)
		return 127, nil
	}
	return s.spawn(ctx, c, path)
}

func (s *Session) runTool(ctx context.Context, t Tool, c *Call) (int, error) {
	ctx, cancel := launchDeadlineCancel(ctx)
	defer cancel()
	c.launch = launchOf(ctx)
	c.refusedPath = new(atomic.Bool)
	status, err := toolStatus(ctx, t.Run(ctx, c), c)
	if status != 0 && err == nil && c.refusedPath.Load() {
		// A path outside the root is a refusal, whatever status the
		// tool gives its other failures (docs/sandbox.md, "Exit status
		// of a refusal").
		status = 2
	}
	return status, err
}

// toolStatus is the status of a tool's call that returned err.
func toolStatus(ctx context.Context, err error, c *Call) (int, error) {
	if err == nil {
		return 0, nil
	}
	if ctx.Err() != nil {
		return 1, ctx.Err()
	}
	var es ExitStatus
	var ies interp.ExitStatus
	var ref *Refusal
	switch {
	case errors.As(err, &es):
		return int(es), nil
	case errors.As(err, &ies):
		return int(ies), nil
	case errors.As(err, &ref):
		fmt.Fprintln(c.Stderr, ref.Error())
		return 2, nil
	}
	fmt.Fprintf(c.Stderr, "%s: %v\n", c.Args[0], err)
	return 1, nil
}

// spawn runs an executable found on PATH; a file the kernel will not
// execute (no #! line) is run as a script by this session's handlers.
func (s *Session) spawn(ctx context.Context, c *Call, path string) (int, error) {
	cmd := &spawn.Cmd{
		Path:   path,
		Args:   c.Args,
		Env:    c.Env,
		Dir:    c.Dir,
		Stdin:  c.Stdin,
		Stdout: c.Stdout,
		Stderr: c.Stderr,
		// The shell's descriptors above 2, as bash's children get them.
		ExtraFiles: c.extraFiles,
	}
	if err := s.needTmp(c.Stderr); err != nil {
		fmt.Fprintf(c.Stderr, "shelter: %s: temporary directory: %v\n", c.Args[0], err)
		return 126, nil
	}
	if err := s.applyLaunch(ctx, cmd); err != nil {
		fmt.Fprintf(c.Stderr, "shelter: %s: %v\n", c.Args[0], err)
		return 126, nil
	}
	status, err := s.spawnRun(ctx, cmd)
	switch {
	case errors.Is(err, spawn.ErrNoExec):
		ctx, cancel := launchDeadlineCancel(ctx)
		defer cancel()
		return s.runScriptFile(ctx, c, path)
	case errors.Is(err, spawn.ErrDeadline):
		// A launcher's deadline; the launcher reports it (timeout: 124).
		return status, nil
	case errors.Is(err, spawn.ErrOutputCut):
		fmt.Fprintf(c.Stderr, "shelter: %s: output cut after the kill grace: a process that left the group still held the pipe\n", c.Args[0])
		return status, nil
	}
	if err != nil && ctx.Err() == nil {
		if line, ok := goneDirLine(c.Args[0], c.Dir); ok {
			fmt.Fprintln(c.Stderr, line)
			return 127, nil
		}
		fmt.Fprintf(c.Stderr, "shelter: %s: %v\n", c.Args[0], unwrapPathError(err))
		return status, nil
	}
	return status, err
}

// spawnRun runs cmd; while it starts, `cmd &` of the job running it and
// kill "$!" of the nested background running it wait for its pid.
func (s *Session) spawnRun(ctx context.Context, cmd *spawn.Cmd) (int, error) {
	ctx = afterFuncs(ctx) // spawn ends the process with context.AfterFunc
	defer s.childStreams(ctx, cmd)()
	var done func()
	if j := jobOf(ctx); j != nil {
		done = j.BeginLaunch()
	} else if st := s.callOf(ctx); st != nil {
		done = st.bg.launch(ctx)
	} else {
		return spawn.Run(ctx, cmd)
	}
	defer done() // however the start ended, a panic of it included
	started := cmd.Started
	cmd.Started = func(pid int) {
		if started != nil {
			started(pid)
		}
		done()
	}
	return spawn.Run(ctx, cmd)
}

// childStreams gives cmd, in place of each stream that is a pipe or
// FIFO the shell polls, a file of its own on the same pipe, in blocking
// mode: handed to a child, the shell's would be put in blocking mode for
// good, and its later reads and writes in the process would lose their
// deadline (fsroot.Arm). The call's input goes as it was given (callInput).
// release closes the files it made, once the child has started.
func (s *Session) childStreams(ctx context.Context, cmd *spawn.Cmd) (release func()) {
	st := s.callOf(ctx)
	// The call's files stay open until the child has them: the call's
	// end closes them, and a nested background may be starting then.
	unlock := func() {}
	if st != nil {
		st.files.RLock()
		unlock = sync.OnceFunc(st.files.RUnlock)
		started := cmd.Started
		cmd.Started = func(pid int) {
			unlock()
			if started != nil {
				started(pid)
			}
		}
	}
	if st != nil && st.inherit != nil {
		if f, ok := cmd.Stdin.(*os.File); ok && f == st.stdin {
			cmd.Stdin = st.inherit
		}
	}
	var made [3]*os.File
	if f, ok := cmd.Stdin.(*os.File); ok {
		if made[0] = fsroot.BlockingCopy(f, syscall.O_RDONLY); made[0] != nil {
			cmd.Stdin = made[0]
		}
	}
	if f, ok := cmd.Stdout.(*os.File); ok {
		if made[1] = fsroot.BlockingCopy(f, syscall.O_WRONLY); made[1] != nil {
			cmd.Stdout = made[1]
		}
	}
	if f, ok := cmd.Stderr.(*os.File); ok {
		if made[2] = fsroot.BlockingCopy(f, syscall.O_WRONLY); made[2] != nil {
			cmd.Stderr = made[2]
		}
	}
	return func() {
		unlock()
		for _, f := range made {
			if f != nil {
				f.Close()
			}
		}
	}
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// runScriptFile runs a shebang-less executable file as a shell script, as
// shells do, but with this session's handlers: every policy applies to
// what it runs. Like a child process, it sees only exported variables.
func (s *Session) runScriptFile(ctx context.Context, c *Call, path string) (int, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(c.Stderr, "shelter: %s: %v\n", c.Args[0], unwrapPathError(err))
		return 126, nil
	}
	if line, _, _ := bytes.Cut(src, []byte("\n")); bytes.IndexByte(line, 0) >= 0 {
		fmt.Fprintf(c.Stderr, "shelter: %s: cannot execute binary file\n", c.Args[0])
		return 126, nil
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), c.Args[0])
	if err != nil {
		fmt.Fprintf(c.Stderr, "shelter: %v\n", err)
		return 2, nil
	}
	r, err := s.childRunner(ctx, c.Env, c.Dir)
	if err != nil {
		return 1, err
	}
	var stdin io.Reader = s.devnull
	if c.Stdin != nil {
		stdin = c.Stdin
	}
	interp.StdIO(stdin, c.Stdout, c.Stderr)(r)
	r.Params = c.Args[1:]
	err = r.Run(ctx, file)
	if ctx.Err() != nil {
		return 1, ctx.Err()
	}
	return exitCode(err), nil
}

// externalRefusal applies the session's policy for programs from PATH.
// Under ExternalsDenied an allowed name runs what it resolved to when the
// kernel was built (path), whatever the session's PATH says now; a path
// typed out is allowed only when it is that program.
func (s *Session) externalRefusal(name string, c *Call) (line, path string, refused bool) {
	cfg := s.k.cfg
	if cfg.Externals == ExternalsAllowed {
		return "", "", false
	}
	base := filepath.Base(name)
	if !slices.Contains(cfg.AllowExternal, base) {
		return externalRefusalLine(name, s.externalPool()), "", true
	}
	want, ok := s.k.allowed[base]
	if !ok {
		return fmt.Sprintf("shelter: external command '%s' is allowed, but shelter's PATH had no '%s' when the kernel was built", name, base), "", true
	}
	if base == name {
		return "", want, false
	}
	got := name
	if !filepath.IsAbs(got) {
		got = filepath.Join(c.Dir, got)
	}
	if filepath.Clean(got) != want {
		return fmt.Sprintf("shelter: external command '%s' is not allowed in this session; the allowed '%s' is %s", name, base, want), "", true
	}
	return "", want, false
}

// isFlag reports whether a word is an option rather than an operand.
func isFlag(w string) bool { return len(w) > 1 && w[0] == '-' }

// parsesLater reports a command whose words become shell source parsed
// when it runs, past the static pass: eval, source, a trap's action, an
// alias.
func parsesLater(args []string) bool {
	name := args[0]
	if (name == "command" || name == "builtin") && len(args) > 1 {
		name = args[1]
	}
	switch name {
	case "eval", "source", ".", "trap", "alias":
		return true
	}
	return false
}
