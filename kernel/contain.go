package kernel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/budget"
	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/kernel/internal/static"
)

// DefaultMemoryLimit is the memory budget of a call when [Config.MemoryLimit]
// is zero.
const DefaultMemoryLimit = 256 << 20

// startBudget makes c the context of a call or job that started at start,
// a child of parent that ends after timeout (none when it is not
// positive) or when c.Cancel is called, with the session's memory budget.
func (s *Session) startBudget(c *budgetContext, parent context.Context, start time.Time, timeout time.Duration) {
	limit := s.k.cfg.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	c.b.Init(limit, &c.endable, start)
	c.job = jobOf(parent)
	c.call, _ = parent.Value(callKey{}).(*callState)
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
	b     budget.Budget
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
func budgetOf(ctx context.Context) *budget.Budget {
	c, _ := ctx.Value(budgetContextKey{}).(*budgetContext)
	if c == nil || c.b.Limit() < 0 {
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
	for name, v := range s.variables() {
		size := budget.VarSize(name, v)
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
	return slices.DeleteFunc(names, func(name string) bool { return s.variable(name).IsSet() })
}

// containCall runs first in the call handler, before any other rerouting.
// It answers the commands shelter's script preparation inserts (jobs,
// `$(<file)`), notes EXIT traps, and ends the call when it outgrew its
// memory budget. ok is false when the command goes on as usual.
func (s *Session) containCall(ctx context.Context, c *command, args []string) (next []string, ok bool) {
	hc, b := c.hc, c.b
	if b != nil && b.Limit() >= 0 {
		if err := b.CheckHeld(hc.Stdout, hc.Env); err != nil {
			return bashcompat.StatusArgv(1), true
		}
	}
	// Calls nest within bounds with or without a memory limit: past them
	// the stack's overflow would end the process.
	if b != nil && b.DeepStack() {
		fmt.Fprintf(hc.Stderr, "shelter: %s: calls nested too deep (functions, eval or source past about %d levels); write it as a loop\n", scriptName(args), budget.MaxCallDepth)
		b.End(budget.ErrTooDeep)
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
	case shast.CmdFrame:
		return frameCall(hc, args), true
	case shast.CmdPipeRec:
		return s.pipes.rec(hc, args), true
	case shast.CmdPipeSet:
		return s.pipes.set(hc, args), true
	case shast.CmdReseed:
		if src, ok := bashcompat.RandomSource(hc.Env.Get("RANDOM").String()); ok {
			mvdanpriv.SetRandom(mvdanpriv.HandlerRunner(hc), src)
		}
		return bashcompat.StatusArgv(hc.LastExitStatus), true
	case shast.CmdGlue:
		return glue(hc, args), true
	case shast.CmdSubshell:
		return s.enterSubshell(hc, args[1:]), true
	case shast.CmdFlags:
		io.WriteString(hc.Stdout, dashFlags(hc))
		return bashcompat.StatusArgv(0), true
	case shast.CmdRefuse:
		// A construct refused where it runs (package rewrite).
		fmt.Fprintln(hc.Stderr, args[1])
		return bashcompat.StatusArgv(2), true
	case shast.CmdGoOn:
		// The guard of what follows a break (package rewrite).
		if mvdanpriv.LoopExitPending(hc) {
			return bashcompat.StatusArgv(1), true
		}
		return bashcompat.StatusArgv(0), true
	case shast.CmdReadonly:
		// The guard of an assignment to a readonly name (package rewrite).
		for _, name := range args[2:] {
			if hc.Env.Get(name).ReadOnly {
				return []string{"exit", "1"}, true
			}
		}
		n, _ := strconv.Atoi(args[1])
		return bashcompat.StatusArgv(n), true
	case shast.CmdOptions:
		return bashcompat.OptionsCall(ctx, bashShell{s}, hc, args), true
	case shast.CmdMatch:
		return bashcompat.MatchCall(bashShell{s}, hc, args), true
	case shast.CmdExtglob:
		return bashcompat.ExtglobCall(ctx, bashShell{s}, hc, args), true
	case shast.CmdSubstStart:
		return bashcompat.SubstStart(hc, mvdanpriv.Option(mvdanpriv.HandlerRunner(hc), "errexit"), args), true
	case shast.CmdCat:
		return bashcompat.StatusArgv(budget.Cat(ctx, budgetOf(ctx), hc.Stdin, hc.Stdout, hc.Stderr)), true
	case shast.CmdArrayAssoc, shast.CmdAssocReset, shast.CmdArrayCount:
		return arrayCall(hc, args)
	case shast.CmdIndirect:
		return indirectCall(hc, args), true
	case shast.CmdNamerefSet:
		return namerefSetCall(hc, args), true
	case shast.CmdUnsetRef:
		return unsetRefCall(hc, args), true
	case "trap":
		if st != nil && c.job == nil {
			st.trapCall(args)
		}
	}
	return nil, false
}

// scriptName is the name of the command args as the script wrote it: a
// framed function's own for its frame command (callstack.go).
func scriptName(args []string) string {
	if args[0] == shast.CmdFrame && len(args) > 1 {
		return args[1]
	}
	return strings.TrimPrefix(args[0], shast.InternalPrefix)
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
		text := string(src)
		if !s.callStack.Load() && bashcompat.ReadsCallStack(text) {
			s.callStack.Store(true)
		}
		if line, ok := crashRefusal(text, static.AssocIn(hc.Env)); ok {
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

// bounded wraps a command's stdout when it is held in memory by the shell
// (a command substitution's capture), so that it counts against the
// call's memory budget.
func (s *Session) bounded(ctx context.Context, w io.Writer) io.Writer {
	if _, ok := w.(*strings.Builder); !ok {
		return w // the common case, which needs no budget
	}
	return budget.Bound(w, budgetOf(ctx))
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
		budget.ByteSize(int64(len(script))), budget.ByteSize(limit), budget.ByteSize(limit/4))}, true
}
