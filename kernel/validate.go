package kernel

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/kernel/internal/static"
)

// validate is the static pass (docs/embedding.md, "Validation before
// execution"): before any statement runs, it
// refuses unsupported constructs (those mvdan/sh would panic on among
// them, see static.Crashes), commands the guard catches and calls a tool
// is certain to refuse; unknown commands and what it cannot judge are
// warnings.
//
// needsTemp reports a construct that uses $TMPDIR without passing through
// the session's handlers (a process substitution); setsErrexit a set or
// shopt command that turns set -e on (rewrite.SetsErrexit); nocase a shopt
// command that names nocasematch (rewrite.SetsNoCaseMatch), failglob one
// that names failglob (rewrite.SetsFailGlob).
func (s *Session) validate(file *syntax.File, hints rewrite.Hints) (issues []Issue, funcs map[string]bool, rewritable, needsTemp, setsErrexit, nocase, failglob bool) {
	if s.assocVarFn == nil {
		s.assocVarFn = s.assocVar
	}
	c := checkers.get()
	defer checkers.put(c)
	v := &c.v
	c.gaps.Reset(file, s.assocVarFn)
	*v = validation{s: s, hints: hints, crash: static.NewCrashCheck(file, s.assocVarFn), gaps: &c.gaps, words: v.words}
	v.crash.Rewritten()
	shast.WalkBranches(file, c.visit)
	if v.found != nil {
		// A function may be called before it is defined: judge the
		// commands again, knowing every function of the script. The
		// gaps, which need no such knowledge, are the first walk's.
		*v = validation{s: s, hints: hints, crash: static.NewCrashCheck(file, s.assocVarFn), gaps: v.gaps, gapsDone: true, funcs: v.found, words: v.words}
		v.crash.Rewritten()
		shast.WalkBranches(file, c.visit)
	}
	issues, funcs, rewritable, needsTemp, setsErrexit, nocase, failglob = v.issues, v.found, v.rewrite, v.procSubst, v.errexit, v.nocase, v.failglob
	for _, f := range v.crash.Findings() {
		issues = append(issues, unsupported(f))
	}
	for _, n := range v.gaps.Notes() {
		issues = append(issues, Issue{Severity: SeverityNote, Code: CodeGap, Line: n.Line, Col: n.Col, Message: n.Gap.Message()})
	}
	*v = validation{words: v.words} // hold nothing of the script between calls
	c.gaps.Reset(nil, nil)
	return issues, funcs, rewritable, needsTemp, setsErrexit, nocase, failglob
}

// A checker is what validate's walks reuse from one call to the next,
// which sessions borrow for the length of a walk (checkers): the walk's
// state with its visitor bound once, and the memory of its gap check.
type checker struct {
	v     validation
	gaps  static.GapCheck
	visit func(syntax.Node) bool
}

var checkers = freeList[*checker]{make: func() *checker {
	c := new(checker)
	c.visit = c.v.visitor()
	return c
}}

// validation is one walk of validate.
type validation struct {
	s     *Session
	hints rewrite.Hints // what the script's text holds, for its rewrites' checks
	crash static.CrashCheck
	gaps  *static.GapCheck // the known gaps the script shows, for its notes (Session.gapCheck)
	// gapsDone is set for a second walk, whose gaps the first found.
	gapsDone bool
	funcs    map[string]bool // the script's functions, when known before the walk
	found    map[string]bool // the functions the walk met
	issues   []Issue
	rewrite  bool // the walk met a node rewrite.Script may change
	// procSubst is set when the walk met a process substitution, whose
	// FIFO mvdan/sh makes in $TMPDIR itself.
	procSubst bool
	// errexit is set when the walk met a command that turns set -e on.
	errexit bool
	// nocase is set when the walk met a command that names nocasematch.
	nocase bool
	// failglob is set when the walk met a command that names failglob.
	failglob bool
	// namerefs are the script's declare -n NAME=TARGET, by name.
	namerefs map[string]string
	// words is a command's words as the walk judges them, one slice for
	// every command: the checker keeps it from walk to walk.
	words []Word
}

// visitor is the walk's visitor, v.visit for every node. The kinds of
// node a script is mostly made of, which neither the crash check nor
// visit's switch acts on, are settled in the closure itself, noting only
// whether rewrite.Script may change them: a node costs the walk one call.
func (v *validation) visitor() func(syntax.Node) bool {
	return func(n syntax.Node) bool {
		if !v.gapsDone {
			v.gaps.Visit(n)
		}
		switch n := n.(type) {
		case nil, *syntax.Word, *syntax.Lit, *syntax.DblQuoted, *syntax.Comment,
			*syntax.BinaryCmd, *syntax.Block, *syntax.File:
			return true
		case *syntax.Redirect:
			v.rewrite = v.rewrite || v.hints.RewritableNode(n)
			return true
		case *syntax.SglQuoted:
			v.rewrite = v.rewrite || n.Dollar && v.hints.RewritableNode(n)
			return true
		case *syntax.Stmt:
			v.rewrite = v.rewrite || n.Background
			return true
		case *syntax.ArithmExp:
			v.rewrite = v.rewrite || v.hints.RewritableNode(n)
			return true
		case *syntax.Assign:
			v.rewrite = v.rewrite || v.hints.RewritableNode(n)
			return true
		case *syntax.ParamExp:
			if n.Index == nil { // else the crash check asks about the array
				v.rewrite = v.rewrite || v.hints.RewritableNode(n)
				return true
			}
		}
		return v.visit(n)
	}
}

func (v *validation) visit(n syntax.Node) bool {
	s := v.s
	v.crash.Visit(n)
	v.rewrite = v.rewrite || v.hints.Rewritable(n)
	switch n := n.(type) {
	case *syntax.CoprocClause:
		// Refused where it runs (rewrite.CoprocRefusal): a warning here.
		v.issues = append(v.issues, issueAt(n.Pos(), SeverityWarning, CodeUnsupported, "coproc is not supported: where it runs it fails with status 2"))
	case *syntax.ProcSubst:
		if s.root != nil {
			// Refused where it runs (rewrite.RefuseProcSubsts).
			v.issues = append(v.issues, issueAt(n.Pos(), SeverityWarning, CodeUnsupported, procSubstRefusal+"; where it runs it fails with status 2"))
		}
		v.procSubst = true
	case *syntax.FuncDecl:
		if n.Name == nil {
			v.issues = append(v.issues, issueAt(n.Pos(), SeverityError, CodeUnsupported, "a function needs a name"))
			break
		}
		if v.found == nil {
			v.found = make(map[string]bool)
		}
		v.found[n.Name.Value] = true
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			if a.Name != nil {
				s.checkVar(&v.issues, a.Pos(), v.assigned(a.Name.Value), n)
			}
		}
		if len(n.Args) > 0 {
			// The words are judged and let go: one slice serves every
			// command.
			words := v.words[:0]
			for _, w := range n.Args {
				words = append(words, shast.StaticWord(w))
			}
			for _, name := range static.AssignedNames(words) {
				s.checkVar(&v.issues, n.Pos(), v.assigned(name), n)
			}
			s.checkCommand(&v.issues, n.Pos(), words, v.funcs)
			v.errexit = v.errexit || rewrite.SetsErrexit(words)
			v.nocase = v.nocase || rewrite.SetsNoCaseMatch(words)
			v.failglob = v.failglob || rewrite.SetsFailGlob(words)
			clear(words)
			v.words = words[:0]
		}
	case *syntax.DeclClause:
		for _, d := range v.declNames(n) {
			s.checkVar(&v.issues, d.pos, d.name, n)
		}
	case *syntax.ForClause:
		if it, ok := n.Loop.(*syntax.WordIter); ok && it.Name != nil {
			s.checkVar(&v.issues, it.Name.Pos(), v.assigned(it.Name.Value), n)
		}
	}
	return true
}

// procSubstRefusal is the line of a process substitution in the sandbox.
const procSubstRefusal = "process substitution is not available in the sandbox profile; allowed: a pipe (cmd | ...) or a file under $TMPDIR"

// confinedRefusal finds, in a confined session, what a script may not
// use there: process substitution.
func (s *Session) confinedRefusal(file *syntax.File) (string, bool) {
	if s.root == nil {
		return "", false
	}
	found := false
	shast.Walk(file, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.ProcSubst); ok {
			found = true
		}
		return !found
	})
	return procSubstRefusal, found
}

// assocVar reports whether the session holds name as an associative
// array; s.mu is held.
func (s *Session) assocVar(name string) bool {
	return s.ownVar(name).Kind == expand.Associative
}

// nestingRefusal refuses source that nests deeper than the parser can
// take (shast.CheckNesting): run, eval and source call it before they hand
// source to the parser.
func nestingRefusal(src string) (Issue, bool) {
	e, deep := shast.CheckNesting(src)
	if !deep {
		return Issue{}, false
	}
	return unsupported(static.Finding{Line: e.Line, Col: e.Col, Message: e.Error()}), true
}

// crashRefusal is the line that refuses source given at run time (eval's
// argument, a sourced file, a trap's command), see static.SourceRefusal.
func crashRefusal(src string, assoc func(name string) bool) (string, bool) {
	f, ok := static.SourceRefusal(src, assoc)
	if !ok {
		return "", false
	}
	return IssueLine(unsupported(f)), true
}

// unsupported is the issue of a construct the static pass refuses.
func unsupported(f static.Finding) Issue {
	return Issue{Severity: SeverityError, Code: CodeUnsupported, Line: f.Line, Col: f.Col, Message: f.Message}
}

func issueAt(pos syntax.Pos, sev Severity, code, msg string) Issue {
	return Issue{Severity: sev, Code: code, Line: int(pos.Line()), Col: int(pos.Col()), Message: msg}
}

// checkVar applies the guard's variable entries to a variable that cmd
// sets; the refusal quotes cmd whole. A for loop is quoted up to its body.
func (s *Session) checkVar(issues *[]Issue, pos syntax.Pos, name string, cmd syntax.Node) {
	e, ok := s.guard.MatchVar(name)
	if !ok {
		return
	}
	var text strings.Builder
	syntax.NewPrinter(syntax.SingleLine(true)).Print(&text, cmd)
	quoted := strings.TrimSpace(text.String())
	if _, loop := cmd.(*syntax.ForClause); loop {
		quoted, _, _ = strings.Cut(quoted, "; do")
	}
	*issues = append(*issues, issueAt(pos, SeverityError, CodeGuard, e.Line(quoted, "nothing ran")))
}

// checkCommand judges one simple command: the guard, a launcher no tool
// answers (at each launcher it unwraps), then the launched command's tool
// or its presence on PATH. funcs are the script's own
// functions; nil when there is no script.
func (s *Session) checkCommand(issues *[]Issue, pos syntax.Pos, words []Word, funcs map[string]bool) {
	if e, ok := s.guard.MatchCommand(words); ok {
		*issues = append(*issues, issueAt(pos, SeverityError, CodeGuard, e.Line(static.WordsText(words), "nothing ran")))
		return
	}
	inner := words
	level := 0
	var t Tool // inner[0]'s tool
	for ; len(inner) > 0 && !inner[0].Opaque; level++ {
		name := inner[0].Text
		if level == 0 && s.isFunc(name, funcs) {
			// The script's function, not the launcher, runs.
			return
		}
		if t = s.tools[name]; t == nil {
			if refusal, ok := launcherRefusal(s.tools, name); ok {
				*issues = append(*issues, issueAt(pos, SeverityError, CodeRefused, refusal.Error()))
				return
			}
		}
		next, ok := s.guard.UnwrapOne(inner)
		if !ok {
			break
		}
		if c, isChecker := t.(StaticChecker); isChecker {
			// A launcher that will refuse its own words (timeout 5x cmd).
			if err := c.CheckStatic(slices.Clone(inner)); err != nil {
				*issues = append(*issues, issueAt(pos, staticSeverity(err), CodeRefused, err.Error()))
				return
			}
		}
		inner = next.Words
	}
	if len(inner) == 0 || inner[0].Opaque {
		return
	}
	name := inner[0].Text
	if level > 0 && s.isFunc(name, funcs) {
		return
	}
	if t != nil {
		if c, ok := t.(StaticChecker); ok {
			// A tool's own code gets words of its own, not the slice the
			// static pass reuses.
			if err := c.CheckStatic(slices.Clone(inner)); err != nil {
				*issues = append(*issues, issueAt(pos, staticSeverity(err), CodeRefused, err.Error()))
			}
		}
		return
	}
	if interp.IsBuiltin(name) || syntax.IsKeyword(name) {
		return
	}
	if line, _, refused := s.externalRefusal(name, &Call{Dir: s.runner.Dir}); refused {
		if !slices.Contains(s.k.cfg.AllowExternal, filepath.Base(name)) {
			// The operator's side; the agent's line is the run's.
			line = externalHintLine(name)
		}
		*issues = append(*issues, issueAt(pos, SeverityWarning, CodeExternal, line))
		return
	}
	if err := s.staticLookPath(name); err != nil {
		*issues = append(*issues, issueAt(pos, SeverityWarning, CodeUnknown, fmt.Sprintf("%s: not a function, tool or program on PATH", name)))
	}
}

// isFunc reports whether name is one of the script's functions (funcs)
// or the session's.
func (s *Session) isFunc(name string, funcs map[string]bool) bool {
	return funcs[name] || s.runner.Funcs[name] != nil
}

// staticSeverity is how sure a tool's static check is: a warning for an
// error wrapped by [Uncertain], else an error.
func staticSeverity(err error) Severity {
	var u *uncertainError
	if errors.As(err, &u) {
		return SeverityWarning
	}
	return SeverityError
}

// pathVar is the session's current $PATH.
func (s *Session) pathVar() string {
	return s.variable("PATH").String()
}
