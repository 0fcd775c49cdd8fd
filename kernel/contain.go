package kernel

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/kernel/internal/static"
)

// DefaultMemoryLimit is the memory budget of a call when [Config.MemoryLimit]
// is zero.
const DefaultMemoryLimit = 256 << 20

// budget bounds what one call (or one job) holds in shelter's own memory:
// each command substitution's capture, the variables, each line `read`
// takes, each xargs item. Captures are checked as they are written; the
// variables at most once a millisecond, from the call handler, so that
// the hot path pays one clock read.
type budget struct {
	limit int64
	owner *endable              // ends the call or job
	cause atomic.Pointer[error] // why end ended it: errTooDeep or a *memoryError
	next  atomic.Int64          // the clock (clockNow) at the next variable check
	calls atomic.Int64          // commands so far, for deepStack
	count atomic.Int64          // the command at which deepStack next counts frames
}

// end ends the call or job the budget bounds, for err.
func (b *budget) end(err error) {
	b.cause.CompareAndSwap(nil, &err)
	b.owner.cancel()
}

// endedBy is the error end was given first; nil if it was not called.
func (b *budget) endedBy() error {
	if p := b.cause.Load(); p != nil {
		return *p
	}
	return nil
}

// startBudget makes c the context of a call or job that started at start,
// a child of parent that ends after timeout (none when it is not
// positive) or when c.cancel is called, with the session's memory budget.
func (s *Session) startBudget(c *budgetContext, parent context.Context, start time.Time, timeout time.Duration) {
	limit := s.k.cfg.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	c.b.limit, c.b.owner = limit, &c.endable
	c.job = jobOf(parent)
	c.call, _ = parent.Value(callKey{}).(*callState)
	c.b.next.Store(int64(start.Sub(clockBase) + time.Millisecond))
	// No command opens more than one level: the first deepInterval
	// cannot reach the bound.
	c.b.count.Store(deepInterval)
	c.files.Init(&c.endable)
	c.start(parent, timeout)
}

// budgetContext is the context a call or a job runs in: it ends as its
// endable does, and it carries the budget, in a type of its own that
// budgetOf and commandOf find (budgetContextKey) without a type
// assertion on the key. It also answers for
// the job and the call its parents hold, found once: the call handler
// asks for both at every command, and would walk the whole chain for a
// call or job that is not there.
type budgetContext struct {
	endable
	b     budget
	job   *job
	call  *callState
	files fsroot.Ends // what its end interrupts (fsroot.Arm)
}

// budgetContextKey finds the budget context itself.
type budgetContextKey struct{}

func (c *budgetContext) Value(key any) any {
	switch key.(type) {
	case budgetContextKey:
		return c
	case fsroot.EndsKey:
		return &c.files
	case jobKey:
		if c.job == nil {
			return nil
		}
		return c.job
	case callKey:
		if c.call == nil {
			return nil
		}
		return c.call
	}
	return c.parent.Value(key)
}

// budgetOf is the budget of the call or job ctx belongs to; nil means
// none (a negative MemoryLimit).
func budgetOf(ctx context.Context) *budget {
	c, _ := ctx.Value(budgetContextKey{}).(*budgetContext)
	if c == nil || c.b.limit < 0 {
		return nil
	}
	return &c.b
}

// endedFor reports whether the call or job ctx belongs to has ended:
// what a reader that set a deadline of its own on an armed file (read -t)
// restores is then a deadline in the past, not none.
func endedFor(ctx context.Context) bool {
	bc, ok := ctx.Value(budgetContextKey{}).(*budgetContext)
	return ok && bc.Err() != nil
}

// memoryError ends a call that outgrew its budget.
type memoryError struct {
	Limit int64
	By    string // what outgrew it: "a command substitution's output", …
	Size  int64
	Unset []string // the variables shedVariables unset after the call
}

func (e *memoryError) Error() string {
	line := fmt.Sprintf("shelter: memory limit of %s exceeded by %s (%s); write large data to a file instead", byteSize(e.Limit), e.By, byteSize(e.Size))
	if len(e.Unset) > 0 {
		line += "; shelter unset " + strings.Join(e.Unset, " ")
	}
	return line
}

func isMemoryError(err error) bool {
	var m *memoryError
	return errors.As(err, &m)
}

// exceed ends the call: its status is 1 and its stderr names the cause.
func (b *budget) exceed(by string, size int64) error {
	err := &memoryError{Limit: b.limit, By: by, Size: size}
	b.end(err)
	return err
}

// allows reports whether size bytes fit in the budget; b may be nil.
func (b *budget) allows(size int64) bool {
	return b == nil || size <= b.limit
}

// checkHeld measures the variables and the capture being written, at most
// once a millisecond.
func (b *budget) checkHeld(hc interp.HandlerContext) error {
	now := clockNow()
	if now < b.next.Load() {
		return nil
	}
	b.next.Store(now + int64(time.Millisecond))
	if sb, ok := hc.Stdout.(*strings.Builder); ok && int64(sb.Len()) > b.limit {
		n := int64(sb.Len())
		sb.Reset()
		return b.exceed("a command substitution's output", n)
	}
	if n := varBytes(hc.Env); n > b.limit {
		return b.exceed(varsCause, n)
	}
	return nil
}

// clockBase is where the budget's clock starts. Every command reads the
// clock: time.Since of a time with a monotonic reading reads it once,
// time.Now twice (the wall clock as well).
var clockBase = time.Now()

// clockNow is the budget's clock, in nanoseconds since clockBase.
func clockNow() int64 { return int64(time.Since(clockBase)) }

// varBytes is what the variables of env hold.
func varBytes(env expand.Environ) int64 {
	var n int64
	env.Each(func(name string, v expand.Variable) bool {
		n += varSize(name, v)
		return true
	})
	return n
}

// varSize is what one variable holds, its name included.
func varSize(name string, v expand.Variable) int64 {
	n := int64(len(name) + len(v.Str))
	for _, e := range v.List {
		n += int64(len(e))
	}
	for k, e := range v.Map {
		n += int64(len(k) + len(e))
	}
	return n
}

// varsCause is what a memoryError names when the variables outgrew the
// budget.
const varsCause = "the shell's variables"

// shedVariables unsets the session's largest variables, as few as it
// takes for the rest to fit in limit; the call the variables' budget
// ended has returned, s.mu is held. Kept, they would end the session's
// next call at its first measure, one millisecond in, and every call
// after it, and hold the memory meanwhile. $? stays 1, the call's
// status. None of the script's code runs: not a function named unset,
// not an ERR trap; and the runs are bounded by the kill grace. It returns
// the names it unset, largest first.
func (s *Session) shedVariables(limit int64) []string {
	r := s.runner
	type held struct {
		name string
		size int64
	}
	var vars []held
	var total int64
	for name, v := range r.Vars {
		size := varSize(name, v)
		if v.IsSet() && !v.ReadOnly {
			vars = append(vars, held{name, size})
		}
		total += size
	}
	slices.SortFunc(vars, func(a, b held) int { return cmp.Compare(b.size, a.size) })
	unset := []*syntax.Word{shast.LitWord("unset"), shast.LitWord("-v"), shast.LitWord("--")}
	var names []string
	for _, v := range vars {
		if total <= limit {
			break
		}
		names = append(names, v.name)
		unset = append(unset, shast.LitWord(v.name))
		total -= v.size
	}
	if len(names) == 0 {
		return nil
	}
	if f, ok := r.Funcs["unset"]; ok {
		delete(r.Funcs, "unset")
		defer func() { r.Funcs["unset"] = f }()
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.grace())
	defer cancel()
	// A negated success, as a failed command would run the ERR trap.
	status := shast.ExitWith(0)
	status.Negated = true
	quietly(r, func() {
		r.Run(ctx, shast.CallStmt(syntax.Pos{}, unset...))
		r.Run(ctx, status)
	})
	return slices.DeleteFunc(names, func(name string) bool { return r.Vars[name].IsSet() })
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// containCall runs first in the call handler, before any other rerouting.
// It answers the commands shelter's script preparation inserts (jobs,
// `$(<file)`), notes EXIT traps, and ends the call when it outgrew its
// memory budget. ok is false when the command goes on as usual.
func (s *Session) containCall(ctx context.Context, c *command, args []string) (next []string, ok bool) {
	hc, b := c.hc, c.b
	if b != nil && b.limit >= 0 {
		if err := b.checkHeld(hc); err != nil {
			return bashcompat.StatusArgv(1), true
		}
	}
	// Calls nest within bounds with or without a memory limit: past them
	// the stack's overflow would end the process.
	if b != nil && b.deepStack() {
		fmt.Fprintf(hc.Stderr, "shelter: %s: calls nested too deep (functions, eval or source past about %d levels); write it as a loop\n", args[0], maxCallDepth)
		b.end(errTooDeep)
		return bashcompat.StatusArgv(2), true
	}
	if !containedName(args[0]) {
		return nil, false
	}
	if line, ok := s.runtimeCrashRefusal(hc, args); ok {
		fmt.Fprintln(hc.Stderr, line)
		return bashcompat.StatusArgv(2), true
	}
	if next, ok := containLoop(hc, args); ok {
		return next, true
	}
	st := c.st
	if strings.HasPrefix(args[0], shast.InternalPrefix+"bg-") {
		if st == nil || c.job != nil {
			return []string{"builtin", ":"}, true // a job's: kill does not know them
		}
		if next, ok := st.bg.contain(hc, args); ok {
			return next, true
		}
	}
	switch args[0] {
	case shast.CmdJob:
		i, _ := strconv.Atoi(args[1])
		if st == nil || c.job != nil || i >= len(st.jobs) {
			return bashcompat.StatusArgv(2), true
		}
		if s.startJob(st.runner, st.jobs[i], st.jobText(i), st.out, st.errOut) == nil {
			return bashcompat.StatusArgv(1), true
		}
		return quietEval(hc, rewrite.BangVar+"="+strconv.FormatInt(s.lastJob.Load(), 10)), true
	case shast.CmdGoOn:
		// The guard of what follows a break (package rewrite).
		if mvdanpriv.LoopExitPending(hc) {
			return bashcompat.StatusArgv(1), true
		}
		return bashcompat.StatusArgv(0), true
	case shast.CmdCat:
		return bashcompat.StatusArgv(s.catShortcut(ctx, hc, budgetOf(ctx))), true
	case "trap":
		if st != nil && c.job == nil {
			st.trapCall(args)
		}
	}
	return nil, false
}

// containedName reports whether containCall may answer or note a command
// of that name, beyond the budget's checks.
func containedName(name string) bool {
	switch name {
	case "eval", "source", ".", "trap", "test", "[", "unset", "break", "continue", "return":
		return true
	}
	return strings.HasPrefix(name, shast.InternalPrefix)
}

// runtimeCrashRefusal refuses, with the words the script computed, what
// would crash the interpreter: source text handed to eval, source or trap,
// and the test and unset forms mvdan/sh panics on.
func (s *Session) runtimeCrashRefusal(hc interp.HandlerContext, args []string) (string, bool) {
	switch args[0] {
	case "eval":
		if line, ok := crashRefusal(strings.Join(args[1:], " "), static.AssocIn(hc.Env)); ok {
			return "eval: " + line, true
		}
	case "source", ".":
		if len(args) < 2 {
			return "", false
		}
		// A bare name the builtin may find on PATH instead is checked
		// here only when the working directory has it.
		o := s.rootOpener(hc.Dir)
		fi, err := o.Stat(args[1])
		if errors.Is(err, ErrOutsideRoot) {
			// A refusal, status 2, where the interpreter's failed open
			// would be 1 (docs/sandbox.md, "Exit status of a refusal").
			return fmt.Sprintf("%s: %s: %v", args[0], args[1], s.root.Outside()), true
		}
		if err != nil || !fi.Mode().IsRegular() {
			return "", false
		}
		f, err := o.Open(context.Background(), args[1])
		if err != nil {
			return "", false
		}
		src, err := io.ReadAll(io.LimitReader(f, maxSourceCheck+1))
		f.Close()
		if err != nil || int64(len(src)) > maxSourceCheck {
			return "", false
		}
		if line, ok := crashRefusal(string(src), static.AssocIn(hc.Env)); ok {
			return args[1] + ": " + line, true
		}
	case "trap":
		if action, _, ok := trapArgs(args[1:]); ok && action != "-" {
			if line, ok := crashRefusal(action, static.AssocIn(hc.Env)); ok {
				return "trap: " + line, true
			}
		}
	case "test", "[", "unset":
		return static.BuiltinRefusal(args)
	}
	return "", false
}

// maxSourceCheck bounds the file that source's check reads; a larger one
// is left to the interpreter's own parse.
const maxSourceCheck = 16 << 20

// maxCallDepth bounds how deep functions, eval and source may nest: past
// it mvdan/sh's goroutine stack would overflow (a fatal error). bash
// itself dies of a full stack at a few thousand levels.
const maxCallDepth = 2500

// framesPerCall is about how many Go frames one level of a shell function
// call takes in mvdan/sh (call, stmt, cmd, …).
const framesPerCall = 8

var errTooDeep = errors.New("calls nested too deep")

// deepStack reports whether the goroutine's stack has grown past
// maxCallDepth levels of calls. Counting the frames walks the whole stack,
// so it counts them only once enough commands have run since the last
// count for the stack to have reached the bound, each command opening at
// most one level (a function, eval or source), and at least every
// [maxInterval] commands, for the call's other goroutines (`cmd &`).
func (b *budget) deepStack() bool {
	n := b.calls.Add(1)
	if n < b.count.Load() {
		return false
	}
	var pc [256]uintptr
	levels := maxCallDepth // unknown: past what pc holds
	if frames := runtime.Callers(0, pc[:]); frames < len(pc) {
		levels = frames / framesPerCall
	} else if runtime.Callers(maxCallDepth*framesPerCall, pc[:1]) > 0 {
		return true
	}
	b.count.Store(n + int64(min(max(maxCallDepth-levels, deepInterval), maxInterval)))
	return false
}

// maxInterval bounds how many commands deepStack lets by between two
// counts; deepInterval is how many it lets by after a stack too deep to
// count at once.
const (
	maxInterval  = 1024
	deepInterval = 128
)

// catShortcut is `$(< FILE)`: the file the redirection opened, copied to
// the capture within the call's deadline and budget. NUL bytes are
// dropped as they arrive, as bash does (the capture would lose them
// anyway), but count against the budget: what is read is what is held.
func (s *Session) catShortcut(ctx context.Context, hc interp.HandlerContext, b *budget) int {
	buf := make([]byte, 32<<10)
	var total int64
	for {
		if ctx.Err() != nil {
			dropCapture(hc.Stdout)
			return 1
		}
		n, err := hc.Stdin.Read(buf)
		if n > 0 {
			total += int64(n)
			if !b.allows(total) {
				b.exceed("a command substitution's output", total)
				dropCapture(hc.Stdout)
				return 1
			}
			hc.Stdout.Write(withoutNUL(buf[:n]))
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			if ctx.Err() != nil {
				// The deadline the call's end set on a FIFO (fsroot.Arm).
				dropCapture(hc.Stdout)
				return 1
			}
			fmt.Fprintf(hc.Stderr, "shelter: %v\n", err)
			return 1
		}
	}
}

// withoutNUL returns p without its NUL bytes: p itself when it has none,
// else a copy (a Write must not change what it is given).
func withoutNUL(p []byte) []byte {
	if bytes.IndexByte(p, 0) < 0 {
		return p
	}
	out := make([]byte, 0, len(p))
	for _, c := range p {
		if c != 0 {
			out = append(out, c)
		}
	}
	return out
}

// dropCapture frees a capture of a call that is ending: the interpreter
// would still scan all of it.
func dropCapture(w io.Writer) {
	if sb, ok := w.(*strings.Builder); ok {
		sb.Reset()
	}
}

// bounded wraps a command's stdout when it is held in memory by the shell
// (a command substitution's capture), so that it counts against the
// call's memory budget.
func (s *Session) bounded(ctx context.Context, w io.Writer) io.Writer {
	sb, ok := w.(*strings.Builder)
	if !ok {
		return w
	}
	b := budgetOf(ctx)
	if b == nil {
		return w
	}
	return &captureWriter{sb: sb, b: b}
}

// captureWriter refuses what would grow a capture past the budget, and
// ends the call.
type captureWriter struct {
	sb      *strings.Builder
	b       *budget
	dropped int64 // NUL bytes received and dropped, which count all the same
}

func (w *captureWriter) Write(p []byte) (int, error) {
	if size := int64(w.sb.Len()+len(p)) + w.dropped; !w.b.allows(size) {
		w.sb.Reset()
		return 0, w.b.exceed("a command substitution's output", size)
	}
	n := len(p)
	kept := withoutNUL(p)
	w.dropped += int64(n - len(kept))
	w.sb.Write(kept)
	return n, nil
}

func statusOf(args []string) error {
	n, _ := strconv.Atoi(args[0])
	if n == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(n))
}

// scriptIssue refuses a script too large for the memory budget: the
// parser and the interpreter hold several copies of it (a here-doc's body
// among them), so a script may use a quarter of the budget.
func (s *Session) scriptIssue(script string) (Issue, bool) {
	limit := s.k.cfg.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	if limit < 0 || int64(len(script)) <= limit/4 {
		return Issue{}, false
	}
	return Issue{Severity: SeverityError, Code: CodeMemory, Message: fmt.Sprintf(
		"shelter: the script is %s; the memory limit of %s allows scripts up to %s: put large data in a file and read it from there",
		byteSize(int64(len(script))), byteSize(limit), byteSize(limit/4))}, true
}
