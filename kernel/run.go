package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/budget"
	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/kernel/internal/static"
	"github.com/shelter-sh/shelter/spawn"
)

// RunOptions configure one call.
type RunOptions struct {
	// Stdin is the call's input; nil means none (/dev/null).
	Stdin io.Reader
	// Timeout overrides the kernel's for this call; negative means none.
	Timeout time.Duration
	// Args are the positional parameters ($1...) for this call.
	Args []string
	// Stdout and Stderr, when set, also receive the call's output as it
	// arrives, unbounded; the Result still holds the bounded capture.
	Stdout, Stderr io.Writer
	// Name is the script's name, $0; empty means "shelter".
	Name string
	// Source is the file the script was read from, as the caller named
	// it: ${BASH_SOURCE[0]} during the call. Empty means none, as for
	// bash -c.
	Source string
	// TTY, when set, runs the call on a new pseudo-terminal of that size:
	// the shell and every program it starts see a terminal on stdout and
	// stderr, and both streams arrive, merged, in the Result's stdout.
	TTY *TermSize
	// Terminal, when set, is the terminal the call runs on, as a line
	// typed at a shell's prompt: each program the call starts in the
	// foreground (not `cmd &`) gets the terminal's foreground while it
	// runs (see spawn.Cmd.Terminal: it reads the keyboard, and Ctrl-C
	// reaches it and no other), and a Stdout or Stderr that is a
	// terminal is handed to the shell and its programs as it is, so
	// that full-screen programs draw on it; the Result then holds none
	// of that stream. Terminal does not set Stdin: give the terminal
	// there too for programs and read to take the keyboard. It is
	// ignored with TTY.
	Terminal *os.File
	// Interactive runs the call as a line typed at a prompt: an EXIT
	// trap it sets is kept, not run when the call ends, and runs at the
	// end of the next call made without Interactive, the one a prompt
	// ends with (see [Session.Exited]).
	Interactive bool
	// Yield, when positive, bounds how long Run waits for the call: a
	// call still running then returns what it printed so far with
	// Result.Yielded set and no status (Result.ExitCode -1; `wait %N`
	// gives it), and goes on as a background job of the session
	// (the last of Result.Jobs, its output continuing into the job's log),
	// which `jobs`, `wait %N` and `kill %N` see. The session goes on from
	// the state it had before the call: what the call changes after it
	// started (cd, variables) stays the job's. An EXIT trap the call sets
	// does not run, and a process substitution it starts past the yield
	// point writes into whichever call of the session runs then. Ignored
	// with TTY, Terminal and Interactive, and for a call that has nothing
	// to wait for (only builtins such as echo, cd and export that neither
	// read nor wait, no loop, pipe, redirection or substitution), which
	// runs to its end as a call without a yield point.
	Yield time.Duration
	// BeforeWait, when set, is called before the call runs when it may
	// wait for anything or run for long — a program, input, a tool, a
	// loop, a function — and not for a call that has nothing to wait for
	// (see Yield), which ends within microseconds. The CLI catches SIGINT
	// and SIGTERM there: a call that cannot wait needs neither handler.
	BeforeWait func()

	command string // the script's text, for a yielded call's job
	// jobTexts are the top-level `cmd &` statements as the script wrote
	// them, printed before the rewrite: what jobs lists for each.
	jobTexts []string
	// procSubst is set when the script has a process substitution, whose
	// end the call waits for.
	procSubst bool
}

// TermSize is the size of a terminal, in characters.
type TermSize struct {
	Rows, Cols uint16
}

// callState is what the handlers need to know of the running call.
type callState struct {
	// files is held for reading while a child is handed the call's
	// files, and for writing while the call's end closes them.
	files sync.RWMutex
	stdin *os.File // the call's own input, as every command inherits it
	// inherit, when not nil, is what a child gets in stdin's place: the
	// same pipe, in a file the shell does not read (see callInput).
	inherit *os.File
	stdout  io.Writer      // the stream commands write the result's stdout to
	runner  *interp.Runner // the interpreter running the call, which its jobs copy
	funcs   []string       // the functions the session and the script define
	source  string         // RunOptions.Source
	bg      backgrounds    // the nested backgrounds, for kill "$!"

	out, errOut *stream        // the call's streams, as jobs started by it write them
	jobs        []*syntax.Stmt // the top-level `cmd &` statements, by index
	jobTexts    []string       // their text before the rewrite (RunOptions.jobTexts); nil when none was rewritten
	setTrap     bool           // the call set or cleared an EXIT trap
	terminal    *os.File       // RunOptions.Terminal
	interrupt   func()         // ends the call when Ctrl-C killed a program on terminal
	interrupted atomic.Bool
	yielded     atomic.Pointer[job] // the job the call became (RunOptions.Yield)

	// data is the result's data: what the latest command that wrote the
	// result's stdout gave (a tool's), nil for none; set at every such
	// command, so an atomic rather than a lock.
	data atomic.Pointer[json.RawMessage]

	// notes are the call's lines for the operator (noteOperator).
	notes operatorNotes
}

// hasFunc reports whether the script or the session defines a function
// of that name, which then wins over a builtin shelter replaces.
func (st *callState) hasFunc(name string) bool {
	return st != nil && slices.Contains(st.funcs, name)
}

func (st *callState) setData(v json.RawMessage) {
	var p *json.RawMessage // allocated only for data: &v would move v to the heap at every call
	if v != nil {
		p = new(json.RawMessage)
		*p = v
	}
	st.data.Store(p)
}

func (st *callState) result() json.RawMessage {
	if p := st.data.Load(); p != nil {
		return *p
	}
	return nil
}

// forResult returns st when a command writing to stdout writes to the
// result itself, so that its data counts; nil otherwise.
func (st *callState) forResult(stdout io.Writer) *callState {
	if st == nil || stdout != st.stdout {
		return nil
	}
	return st
}

// Run runs bash source in the session and answers with one [Result]. A
// script refused before execution (parse error, validation, guard) is a
// Result with exit code 2 and Rejected set, never an error; the error is
// only [ErrClosed].
func (s *Session) Run(ctx context.Context, script string, opts RunOptions) (Result, error) {
	start := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Result{}, ErrClosed
	}
	s.lendVars()
	defer s.returnVars()
	s.ready()
	s.pending = nil
	if is, ok := s.scriptIssue(script); ok {
		return s.rejected(start, []Issue{is}), nil
	}
	if is, ok := nestingRefusal(script); ok {
		return s.rejected(start, []Issue{is}), nil
	}
	file, err := s.parse(script)
	if err != nil {
		return s.rejected(start, []Issue{parseIssue(script, err)}), nil
	}
	s.noteIntrospection(script)
	s.pipes.reset()
	hints := rewrite.HintsOf(script)
	issues, funcs, rewritable, needsTemp, setsErrexit, nocase, failglob := s.validate(file, hints)
	if hasError(issues) {
		return s.rejected(start, issues), nil
	}
	if needsTemp && s.root != nil {
		// Refused where it runs (docs/sandbox.md).
		rewritable = rewrite.RefuseProcSubsts(file, procSubstRefusal) || rewritable
	} else if needsTemp {
		// A failure shows as the interpreter's own "cannot create fifo".
		s.tmp.Ensure()
		opts.procSubst = true
	}
	if setsErrexit || s.errexitOn() {
		rewrite.SubstErrexit(file)
	}
	held := s.heldOptions()
	if nocase || held != "" && bashcompat.OptionHeld(held, "nocasematch") {
		rewrite.NoCaseMatch(file)
	}
	if failglob || held != "" && bashcompat.OptionHeld(held, "failglob") {
		rewrite.FailGlob(file)
	}
	// A script that names a variable the session answers as it is read
	// (OSTYPE, HOSTNAME…) has its subshells marked, and so has every later
	// call's, for the functions it may have defined.
	if hints.Answered() {
		s.answers.Store(true)
	}
	answered := s.answers.Load()
	if rewritable || answered {
		opts.jobTexts = backgroundTexts(file)
		rewrite.Script(file, answered)
	}
	opts.command = script
	res := s.execute(ctx, file, opts, start, funcs)
	res.Issues = withNotes(issues, res.Issues)
	s.noteHold(&res)
	return res, nil
}

// parse parses bash source with a parser of the process's; s.mu is held.
func (s *Session) parse(script string) (*syntax.File, error) {
	p := parsers.get()
	s.source.Reset(script)
	file, err := p.Parse(&s.source, "")
	s.source.Reset("")
	parsers.put(p)
	return file, err
}

// Check runs the static pass only: it parses script and validates it as
// Run would, and runs nothing.
func (s *Session) Check(script string) ([]Issue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	s.lendVars()
	defer s.returnVars()
	s.ready()
	s.pending = nil
	if is, ok := s.scriptIssue(script); ok {
		return []Issue{is}, nil
	}
	if is, ok := nestingRefusal(script); ok {
		return []Issue{is}, nil
	}
	file, err := s.parse(script)
	if err != nil {
		return []Issue{parseIssue(script, err)}, nil
	}
	issues, _, _, _, _, _, _ := s.validate(file, rewrite.HintsOf(script))
	return issues, nil
}

// RunArgv runs one command from literal words, without shell parsing:
// functions, tools, the guard and the external policy apply as in Run.
func (s *Session) RunArgv(ctx context.Context, argv []string, opts RunOptions) (Result, error) {
	start := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Result{}, ErrClosed
	}
	s.lendVars()
	defer s.returnVars()
	s.ready()
	s.pending = nil
	if len(argv) == 0 {
		return s.rejected(start, []Issue{{Severity: SeverityError, Code: CodeParse, Message: "shelter: empty argv; give at least a command name"}}), nil
	}
	words := make([]*syntax.Word, len(argv))
	lits := make([]Word, len(argv))
	for i, a := range argv {
		words[i] = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: a}}}
		lits[i] = Word{Text: a}
		if strings.Contains(a, "'") {
			// A single-quoted part cannot hold a quote; a double-quoted
			// literal with escapes can hold anything.
			words[i] = &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.Lit{Value: dqEscape(a)}}}}}
		}
	}
	var issues []Issue
	s.checkCommand(&issues, syntax.Pos{}, lits, nil)
	if hasError(issues) {
		return s.rejected(start, issues), nil
	}
	stmt := &syntax.Stmt{Cmd: &syntax.CallExpr{Args: words}}
	opts.command = commandText(stmt)
	res := s.execute(ctx, &syntax.File{Stmts: []*syntax.Stmt{stmt}}, opts, start, nil)
	res.Issues = withNotes(issues, res.Issues)
	s.noteHold(&res)
	return res, nil
}

func dqEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '"', '$', '`':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (s *Session) rejected(start time.Time, issues []Issue) Result {
	var msg strings.Builder
	for _, is := range issues {
		if is.Severity == SeverityError {
			msg.WriteString(IssueLine(is))
			msg.WriteByte('\n')
		}
	}
	res := Result{
		ExitCode:    2,
		Stderr:      msg.String(),
		StderrBytes: int64(msg.Len()),
		Cwd:         s.runner.Dir,
		DurationMS:  time.Since(start).Milliseconds(),
		Rejected:    true,
		Issues:      issues,
		Jobs:        s.jobs.Running(),
	}
	s.noteHold(&res)
	return res
}

// IssueLine is the one line an issue prints as, in a refused run's
// stderr, in `shelter check` and at the prompt: a tool's or the guard's
// refusal is its own line, exactly; another issue is
// "shelter: line L:C: MESSAGE" when it has a position, and a warning
// says so after the position ("shelter: line 1:1: warning: …"); a note
// says so first ("shelter: note: line 1:1: …").
func IssueLine(is Issue) string {
	switch {
	case is.Code == CodeRefused || is.Code == CodeGuard:
		return is.Message
	case is.Severity == SeverityNote:
		return fmt.Sprintf("shelter: note: line %d:%d: %s", is.Line, is.Col, is.Message)
	}
	msg := strings.TrimPrefix(is.Message, "shelter: ")
	if is.Severity == SeverityWarning {
		msg = "warning: " + msg
	}
	switch {
	case is.Line > 0:
		return fmt.Sprintf("shelter: line %d:%d: %s", is.Line, is.Col, msg)
	case is.Severity == SeverityWarning:
		return "shelter: " + msg
	}
	return is.Message
}

// execute runs a call's statements as one script: an EXIT trap set during
// the call runs when it ends, and each top-level `cmd &` becomes a job of
// the session rather than of the call.
func (s *Session) execute(ctx context.Context, file *syntax.File, opts RunOptions, start time.Time, funcs map[string]bool) Result {
	// The run reuses what the static pass found on PATH.
	s.paths.Store(s.pending)
	s.pending = nil
	f := s.newFrame(opts)
	stdout, stderr, out, errOut := &f.stdout, &f.stderr, &f.out, &f.errOut
	var snap *interp.Runner // the state before the call, for a yield
	if yieldable(opts) || opts.BeforeWait != nil {
		waits := s.waitsFor(file)
		if waits && opts.BeforeWait != nil {
			opts.BeforeWait()
		}
		// A live output may have no room.
		if yieldable(opts) && (waits || opts.Stdout != nil || opts.Stderr != nil) {
			snap = mvdanpriv.Snapshot(s.runner)
		}
	}
	// What the call holds is released when it returns, or by the job it
	// becomes when it yields.
	hold := &f.hold
	handedOff := false
	defer func() {
		if !handedOff {
			hold.release()
		}
	}()
	// What the call starts that leaves its process group is ended when the
	// call ends (with a subreaper).
	hold.window = s.window()

	timeout := s.k.cfg.Timeout
	if opts.Timeout != 0 {
		timeout = opts.Timeout
	}
	// The call's context always ends with the call: what a function,
	// subshell or group left running in the background ends with it.
	// Not part of the frame: the runner keeps the context of its run
	// (for expansions) until the call has ended (ForgetRunContext, below)
	// and, for a call that yielded, until that call's own end; the frame
	// and its captures would stay with it.
	bctx := new(budgetContext)
	parent, detach := ctx, func() bool { return false }
	if snap != nil {
		// A call that yields outlives ctx: ctx ends it only until then.
		parent = context.WithoutCancel(ctx)
	}
	s.startBudget(bctx, parent, start, timeout)
	if snap != nil {
		detach = context.AfterFunc(ctx, bctx.Cancel)
		// A yielded call's commands are its own, not those of the
		// session's call of the moment (s.call).
		bctx.call = &f.state
	}
	hold.end = &bctx.endable
	callCtx := context.Context(bctx)

	stdin, inherit, owned, err := s.callInput(callCtx, opts.Stdin)
	if err != nil {
		return s.rejected(start, []Issue{{Severity: SeverityError, Code: CodeParse, Message: "shelter: stdin: " + err.Error()}})
	}
	hold.input = owned
	hold.output = [2]*liveFile{liveOutput(&bctx.endable, out), liveOutput(&bctx.endable, errOut)}
	r := s.runner
	hold.out, hold.errOut = out, errOut
	errOut.ended = callCtx
	var shellOut, shellErr io.Writer = out, errOut
	var tty *callTTY
	if opts.TTY != nil {
		var err error
		tty, err = openCallTTY(&pty.Winsize{Rows: opts.TTY.Rows, Cols: opts.TTY.Cols}, out)
		if err != nil {
			return s.rejected(start, []Issue{{Severity: SeverityError, Code: CodeParse, Message: "shelter: tty: " + err.Error()}})
		}
		shellOut, shellErr = tty.File, tty.File
	}
	shellOut, shellErr = terminalStreams(opts, shellOut, shellErr)
	interp.StdIO(stdin, shellOut, shellErr)(r)
	s.origOut.set(shellOut)
	s.origErr.set(shellErr)
	if opts.Args != nil {
		interp.Params(append([]string{"--"}, opts.Args...)...)(r)
	}
	state := &f.state
	f.hold.files = &state.files
	state.stdin, state.inherit, state.stdout, state.source = stdin, inherit, shellOut, opts.Source
	state.runner = r
	if opts.TTY == nil && opts.Terminal != nil {
		state.terminal = opts.Terminal
		state.interrupt = func() {
			state.interrupted.Store(true)
			bctx.Cancel()
		}
	}
	if len(funcs)+len(r.Funcs) > 0 {
		state.funcs = slices.AppendSeq(slices.Collect(maps.Keys(funcs)), maps.Keys(r.Funcs))
	}
	// Run rewrote the script already (rewrite.Script), so that the
	// statements detached as jobs have the rewrites too.
	state.jobs, state.jobTexts = rewrite.DetachJobs(file), opts.jobTexts
	file.Name = opts.Name
	if file.Name == "" {
		file.Name = "shelter"
	}
	s.call.Store(state)

	var crash any
	if snap == nil {
		crash, err = runGuarded(callCtx, r, file)
		if opts.procSubst && crash == nil {
			s.awaitProcSubsts(callCtx, state, r)
		}
	} else {
		var running chan outcome
		if running, crash, err = runYielding(callCtx, r, file, opts.Yield); running != nil {
			handedOff = true
			detach()
			return s.yield(&yielded{snap: snap, command: opts.command, ctx: callCtx, end: bctx.Cancel, timeout: timeout, f: f, running: running, hold: hold}, start)
		}
	}
	if tty != nil {
		// Everything printed on the terminal reaches the sink before it is read.
		tty.Close(s.grace())
	}
	s.call.Store(nil)
	switch {
	case opts.Interactive:
		// An EXIT trap is kept for the call that ends the prompt.
		state.setTrap = false
	case s.ownVar(bashcompat.ExitTrapVar).IsSet():
		state.setTrap = true
	}
	if st := s.endTraps(callCtx, state, exitCode(err)); st != exitCode(err) {
		// The EXIT trap ran `exit N`: N is the call's status, as in bash.
		err = nil
		if st != 0 {
			err = interp.ExitStatus(st)
		}
	}
	s.origOut.set(io.Discard)
	s.origErr.set(io.Discard)
	interp.StdIO(s.devnull, io.Discard, io.Discard)(r)
	if s.fds.used.Load() {
		s.fds.endCall(s.ownVar(shast.FdVar).String())
	}

	res := Result{
		ExitCode:   exitCode(err),
		Cwd:        r.Dir,
		DurationMS: time.Since(start).Milliseconds(),
		Jobs:       s.jobs.Running(),
		Data:       state.result(),
		Issues:     state.notes.take(),
	}
	over, overMemory := errors.AsType[*budget.MemoryError](bctx.b.EndedBy())
	switch {
	case crash != nil:
		res.ExitCode = 2
		res.Issues = append(res.Issues, Issue{Severity: SeverityError, Code: CodeInternal, Message: fmt.Sprintf("shelter: the interpreter failed on this script: %v", crash)})
		fmt.Fprintf(errOut, "shelter: the interpreter failed on this script: %v\n", crash)
	case errors.Is(bctx.b.EndedBy(), budget.ErrTooDeep) && ctx.Err() == nil:
		res.ExitCode = 2
	case overMemory && ctx.Err() == nil:
		res.ExitCode = 1
		if over.By == budget.VarsCause {
			over.Unset = s.shedVariables(over.Limit)
		}
		fmt.Fprintln(errOut, over.Error())
	case ctx.Err() != nil || state.interrupted.Load():
		res.ExitCode, res.Cancelled = 130, true
	case errors.Is(callCtx.Err(), context.DeadlineExceeded) && bctx.b.EndedBy() == nil:
		res.ExitCode, res.TimedOut = 124, true
		fmt.Fprintf(errOut, "shelter: timed out after %s\n", timeout)
	case err != nil && res.ExitCode == 1 && !isExitStatus(err):
		fmt.Fprintf(errOut, "shelter: %v\n", err)
	}
	// The runner keeps the context of its latest run, and through it the
	// caller's, until the next: an idle session would hold them all.
	mvdanpriv.ForgetRunContext(r)
	stdout.Close()
	stderr.Close()
	s.captured(&res, stdout, stderr)
	if res.ExitCode != 0 || res.Truncated {
		res.Data = nil
	}
	return res
}

// captured gives res what the call's closed sinks hold.
func (s *Session) captured(res *Result, stdout, stderr *spawn.Sink) {
	o, e := stdout.Capture(), stderr.Capture()
	res.Stdout, res.Stderr = s.text(o.Text), s.text(e.Text)
	res.StdoutBytes, res.StderrBytes = o.Total, e.Total
	res.Truncated = o.Truncated || e.Truncated
	res.SpillPath, res.StderrSpillPath = o.SpillPath, e.SpillPath
}

// runGuarded runs node; a panic of the interpreter becomes crash, so
// that a script never takes its host down.
func runGuarded(ctx context.Context, r *interp.Runner, node syntax.Node) (crash any, err error) {
	defer func() {
		if p := recover(); p != nil {
			crash = p
		}
	}()
	return nil, r.Run(ctx, node)
}

// callInput turns a call's input into the file the shell reads: /dev/null
// when there is none; for a reader that is not a file, a pipe fed by a
// goroutine. A pipe or FIFO is read through a file of its own whose
// reads end with ctx (fsroot.Pollable, fsroot.Arm); children inherit the
// other, given or made (inherit), since handing a file to a child puts it
// in blocking mode for good. The files the call must close come back in
// owned.
func (s *Session) callInput(ctx context.Context, in io.Reader) (stdin, inherit *os.File, owned [2]*os.File, err error) {
	var f *os.File
	switch in := in.(type) {
	case nil:
		return s.devnull, nil, owned, nil
	case *os.File:
		f = in
	default:
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, nil, owned, err
		}
		go func() {
			io.Copy(pw, in)
			pw.Close()
		}()
		f, owned[0] = pr, pr
	}
	g, reopened := fsroot.Pollable(f, syscall.O_RDONLY)
	if !reopened {
		return f, nil, owned, nil
	}
	fsroot.Arm(ctx, g)
	owned[1] = g
	return g, f, owned, nil
}

// liveOutput lets the live copy of a call's stream (RunOptions.Stdout or
// Stderr) that is a pipe nobody reads hold the call no longer than end:
// it is written through a file of its own (fsroot.Pollable), and a write still
// waiting for room when end ends fails (liveFile). What that cut short
// is not forwarded; the Result still holds it. It returns what the call
// must close, nil when the live copy is not a file.
func liveOutput(end *endable, st *stream) *liveFile {
	f, ok := st.live.(*os.File)
	if !ok {
		return nil
	}
	lf := &liveFile{to: f}
	end.onEnd(lf.end)
	st.live = lf
	return lf
}

// liveGrace bounds how long a write to a live output made after the
// call's end waits for room: what shelter says then (`shelter: timed out
// after 2s`, an EXIT trap's output) still reaches a pipe that is read.
const liveGrace = 100 * time.Millisecond

// liveFile is a live output whose writes end with the call: the call's
// end interrupts the write that waits for room, and each write made
// after it waits at most liveGrace. Its file of its own is made at the
// first write, so that a call that prints nothing (`shelter -c true`
// with its output on a pipe) opens nothing.
type liveFile struct {
	to    *os.File // the embedder's
	mu    sync.Mutex
	f     *os.File // what writes go to once one came: a copy of to, or to
	own   bool     // f is a copy, which has deadlines and is closed
	ended bool
}

func (l *liveFile) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = true
	if l.own {
		l.f.SetWriteDeadline(time.Now())
	}
}

func (l *liveFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.f == nil {
		l.f, l.own = fsroot.Pollable(l.to, syscall.O_WRONLY)
	}
	if l.ended && l.own {
		l.f.SetWriteDeadline(time.Now().Add(liveGrace))
	}
	f := l.f
	l.mu.Unlock()
	return f.Write(p)
}

// Close closes the copy the writes made, if they made one.
func (l *liveFile) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.own {
		l.f.Close()
	}
}

// callHold is what a call holds until it returns, or until the job it
// becomes when it yields ends: fields, not a list of funcs, so that a
// call allocates nothing to remember them.
type callHold struct {
	files       *sync.RWMutex // the call's callState.files
	window      *orphanWindow
	end         *endable     // the call's context, ended
	input       [2]*os.File  // closed: the files callInput made
	output      [2]*liveFile // closed: what liveOutput made
	out, errOut *stream
	after       []func() // what a yield adds, released first
}

// release lets go of it all, in the reverse order it was taken.
func (h *callHold) release() {
	for i := len(h.after) - 1; i >= 0; i-- {
		h.after[i]()
	}
	if h.errOut != nil {
		h.errOut.stop()
	}
	if h.out != nil {
		h.out.stop()
	}
	if h.files != nil {
		h.files.Lock() // no child is being handed them
	}
	for _, f := range h.input {
		if f != nil {
			f.Close()
		}
	}
	for _, l := range h.output {
		l.Close()
	}
	if h.files != nil {
		h.files.Unlock()
	}
	if h.end != nil {
		h.end.Cancel()
	}
	h.window.Close()
}

func (s *Session) text(out string) string {
	if s.k.cfg.Profile == ProfileHost {
		return out
	}
	return stripANSI(out)
}

// callFrame is what a call allocates, in one piece: its state and the
// capture of its two streams.
type callFrame struct {
	state          callState
	stdout, stderr spawn.Sink
	out, errOut    stream
	hold           callHold
}

func (s *Session) newFrame(opts RunOptions) *callFrame {
	f := new(callFrame)
	limit, spillCap := s.k.cfg.OutputLimit, s.k.cfg.SpillCap
	f.stdout.Init(limit/2, limit-limit/2, s.spills.Path(), "stdout", spillCap)
	f.stderr.Init(limit/2, limit-limit/2, s.spills.Path(), "stderr", spillCap)
	f.stdout.SpillWith(s.spillCreate)
	f.stderr.SpillWith(s.spillCreate)
	f.out.sink, f.out.live = &f.stdout, opts.Stdout
	f.errOut.sink, f.errOut.live = &f.stderr, opts.Stderr
	// The spill directory is made when a stream first outgrows what the
	// sink keeps in memory, the moment the sink creates its spill file.
	budget := int64(max(limit/2, 0) + max(limit-limit/2, 0))
	if budget == 0 {
		budget = spawn.DefaultHardCap
	}
	f.out.spillDir, f.out.budget = &s.spills, budget
	f.errOut.spillDir, f.errOut.budget = &s.spills, budget
	f.state.out, f.state.errOut = &f.out, &f.errOut
	return f
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if es, ok := errors.AsType[interp.ExitStatus](err); ok {
		return int(es)
	}
	return 1
}

func isExitStatus(err error) bool {
	_, ok := errors.AsType[interp.ExitStatus](err)
	return ok
}

// parseIssue is the issue of src's parse error err. Where bash would have
// parsed src (static.BashAccepts), the message says so and how to write
// it for both.
func parseIssue(src string, err error) Issue {
	is := Issue{Severity: SeverityError, Code: CodeParse, Message: err.Error()}
	var le syntax.LangError
	if errors.As(err, &le) {
		is.Line, is.Col = int(le.Pos.Line()), int(le.Pos.Col())
		is.Message = strings.TrimPrefix(err.Error(), le.Pos.String()+": ")
	}
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		is.Line, is.Col, is.Message = int(pe.Pos.Line()), int(pe.Pos.Col()), pe.Text
		if pe.Incomplete {
			is.Message = strings.TrimSuffix(pe.Text, ".")
		}
	}
	if is.Line > 0 {
		if why, ok := static.BashAccepts(src, is.Line, is.Col, is.Message); ok {
			is.Message += "; " + why
		}
	}
	return is
}

func hasError(issues []Issue) bool {
	for _, is := range issues {
		if is.Severity == SeverityError {
			return true
		}
	}
	return false
}

// errexitOn reports whether set -e is on in the session's shell, as a
// previous call left it.
func (s *Session) errexitOn() bool {
	p := mvdanpriv.Errexit(s.runner)
	return p != nil && *p
}

// heldOptions is what the session's shell holds of the options mvdan/sh
// does not implement (bashcompat.OptionsVar), "" when none was ever set.
func (s *Session) heldOptions() string {
	return s.ownVar(bashcompat.OptionsVar).String()
}
