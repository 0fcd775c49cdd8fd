package kernel

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
)

// waitsFor reports whether the script file may wait for anything — a
// program, input, a tool, another command's end — or run for long (room
// in a live output, RunOptions.Stdout and Stderr, is the caller's to
// weigh). A call that may not has no use for a yield point, so it runs
// as a call without one, with no snapshot to take and no goroutine to
// start, and RunOptions.BeforeWait is not called for it. It
// says false only for what can only be quick: statements of the shell's
// own builtins that neither read nor wait (nowaitBuiltins) and that no
// tool, function or alias of the session replaces, with assignments,
// tests, arithmetic, if and case, and calls of functions of the same,
// the script's own (callsOwnFunc) or the session's (callsQuickFunc); no
// loop, no pipe or background, no redirection, no command or process
// substitution, no word that may list a directory or grow into many (a
// glob or a brace) or look a user up (~), and no
// ERR trap that a failing command would run.
func (s *Session) waitsFor(file *syntax.File) bool {
	if trap, ok := mvdanpriv.ErrTrap(s.runner); !ok || trap != "" {
		return true
	}
	sc := nowaitScan{s: s}
	sc.walk(file)
	if sc.waits || len(sc.calls) > 0 && sc.unsets { // unset may take a function away
		return true
	}
	for _, call := range sc.calls {
		if !s.callsOwnFunc(file, call, sc.funcs) && !s.callsQuickFunc(call, sc.funcs) {
			return true
		}
	}
	return false
}

// A nowaitScan is a walk of waitsFor's: whether it met what may wait,
// and what it leaves to settle once it has met every function — the
// functions defined, whose bodies it judges as it judges the rest, and
// the calls that only a function would make quick.
type nowaitScan struct {
	s      *Session
	waits  bool
	funcs  []*syntax.FuncDecl
	calls  []*syntax.CallExpr
	unsets bool // it met unset, which may take a function away
}

func (sc *nowaitScan) walk(node syntax.Node) {
	syntax.Walk(node, sc.visit)
}

func (sc *nowaitScan) visit(node syntax.Node) bool {
	if sc.waits {
		return false
	}
	s := sc.s
	switch n := node.(type) {
	case *syntax.Stmt:
		sc.waits = n.Background || n.Coprocess || len(n.Redirs) > 0
	case *syntax.DeclClause:
		sc.waits = s.mayWait(n.Variant.Value)
	case *syntax.FuncDecl:
		sc.funcs = append(sc.funcs, n)
		// One in a builtin's place calls itself where its body names
		// the builtin.
		sc.waits = nowaitBuiltins[n.Name.Value]
	case *syntax.CallExpr:
		switch {
		case len(n.Args) == 0:
		case globs(n.Args[1:]):
			sc.waits = true
		case s.mayWait(n.Args[0].Lit()):
			sc.calls = append(sc.calls, n)
		default:
			sc.unsets = sc.unsets || n.Args[0].Lit() == "unset"
		}
	case *syntax.ArrayElem:
		sc.waits = n.Value != nil && globs([]*syntax.Word{n.Value})
	case *syntax.BinaryCmd:
		sc.waits = n.Op == syntax.Pipe || n.Op == syntax.PipeAll
	case *syntax.Lit:
		sc.waits = strings.Contains(n.Value, "~")
	case nil, *syntax.File, *syntax.Comment, *syntax.Assign, *syntax.Word,
		*syntax.SglQuoted, *syntax.DblQuoted, *syntax.ParamExp, *syntax.ArithmExp,
		*syntax.ArithmCmd, *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm,
		*syntax.FlagsArithm, *syntax.Block, *syntax.IfClause, *syntax.CaseClause,
		*syntax.CaseItem, *syntax.TestClause, *syntax.BinaryTest, *syntax.UnaryTest,
		*syntax.ParenTest, *syntax.LetClause, *syntax.ArrayExpr:
	default:
		sc.waits = true
	}
	return !sc.waits
}

// callsOwnFunc reports whether call runs a function of the script's for
// certain: a statement of the script's top level defines it before call
// (whatever function of that name the session held, the script's
// replaced it), no tool or alias takes its place, and call is outside
// every function of funcs, which are all the script's. Every body of
// that name then is of what cannot wait (the walk judged them), and none
// recurses: no function of the script calls another of the script's,
// nor one in a builtin's place itself.
func (s *Session) callsOwnFunc(file *syntax.File, call *syntax.CallExpr, funcs []*syntax.FuncDecl) bool {
	name := call.Args[0].Lit()
	if name == "" || s.tools[name] != nil || s.aliased(name) {
		return false
	}
	at := call.Pos().Offset()
	for _, f := range funcs {
		if f.Pos().Offset() < at && at < f.End().Offset() {
			return false // inside a function: it may recurse
		}
	}
	for _, st := range file.Stmts {
		if f, ok := st.Cmd.(*syntax.FuncDecl); ok && f.Name.Value == name && st.End().Offset() <= at {
			return true
		}
	}
	return false
}

// callsQuickFunc reports whether call runs a function the session holds
// whose body is of what cannot wait and calls no function, defines none
// and unsets nothing: no function of the script, funcs, has its name, no
// tool or alias takes its place, and it is not in a builtin's. Such a
// function is a leaf: whatever calls it, nothing recurses through it.
func (s *Session) callsQuickFunc(call *syntax.CallExpr, funcs []*syntax.FuncDecl) bool {
	name := call.Args[0].Lit()
	body := s.runner.Funcs[name]
	if body == nil || s.tools[name] != nil || nowaitBuiltins[name] || s.aliased(name) {
		return false
	}
	for _, f := range funcs {
		if f.Name.Value == name {
			return false
		}
	}
	sc := nowaitScan{s: s}
	sc.walk(body)
	return !sc.waits && len(sc.calls) == 0 && len(sc.funcs) == 0 && !sc.unsets
}

// aliased reports whether an alias of the session takes name's place.
func (s *Session) aliased(name string) bool {
	if !mvdanpriv.ExpandAliases(s.runner) {
		return false
	}
	_, alias := mvdanpriv.Alias(s.runner, name)
	return alias
}

// mayWait reports whether the command name may wait: anything but one
// of nowaitBuiltins that the session runs as the shell's own.
func (s *Session) mayWait(name string) bool {
	return !nowaitBuiltins[name] || s.tools[name] != nil || s.runner.Funcs[name] != nil || s.aliased(name)
}

// nowaitBuiltins are the shell's builtins that neither read input nor
// wait for anything.
var nowaitBuiltins = map[string]bool{
	"echo": true, "printf": true, "true": true, "false": true, ":": true,
	"cd": true, "pwd": true, "export": true, "unset": true, "readonly": true,
	"declare": true, "typeset": true, "local": true, "shift": true, "set": true,
	"test": true, "[": true, "exit": true, "return": true,
}

// globs reports whether any of words may expand to a directory's
// listing or to many words: an unquoted glob or brace character.
func globs(words []*syntax.Word) bool {
	for _, w := range words {
		for _, part := range w.Parts {
			if lit, ok := part.(*syntax.Lit); ok && strings.ContainsAny(lit.Value, "*?[{") {
				return true
			}
		}
	}
	return false
}
