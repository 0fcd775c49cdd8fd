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
// tests, arithmetic, if and case, and calls of the script's own
// functions of the same (callsOwnFunc); no loop, no pipe or
// background, no redirection, no command or process substitution, no
// word that may list a directory or grow into many (a glob or a brace)
// or look a user up (~), and no
// ERR trap that a failing command would run.
func (s *Session) waitsFor(file *syntax.File) bool {
	if trap, ok := mvdanpriv.ErrTrap(s.runner); !ok || trap != "" {
		return true
	}
	waits := false
	// The script's functions, whose bodies the walk judges as it judges
	// the rest, and the calls that only one of them would make quick:
	// settled once the walk has met every function.
	var funcs []*syntax.FuncDecl
	var calls []*syntax.CallExpr
	unsets := false
	syntax.Walk(file, func(node syntax.Node) bool {
		if waits {
			return false
		}
		switch n := node.(type) {
		case *syntax.Stmt:
			waits = n.Background || n.Coprocess || len(n.Redirs) > 0
		case *syntax.DeclClause:
			waits = s.mayWait(n.Variant.Value)
		case *syntax.FuncDecl:
			funcs = append(funcs, n)
			// One in a builtin's place calls itself where its body
			// names the builtin.
			waits = nowaitBuiltins[n.Name.Value]
		case *syntax.CallExpr:
			switch {
			case len(n.Args) == 0:
			case globs(n.Args[1:]):
				waits = true
			case s.mayWait(n.Args[0].Lit()):
				calls = append(calls, n)
			default:
				unsets = unsets || n.Args[0].Lit() == "unset"
			}
		case *syntax.ArrayElem:
			waits = n.Value != nil && globs([]*syntax.Word{n.Value})
		case *syntax.BinaryCmd:
			waits = n.Op == syntax.Pipe || n.Op == syntax.PipeAll
		case *syntax.Lit:
			waits = strings.Contains(n.Value, "~")
		case nil, *syntax.File, *syntax.Comment, *syntax.Assign, *syntax.Word,
			*syntax.SglQuoted, *syntax.DblQuoted, *syntax.ParamExp, *syntax.ArithmExp,
			*syntax.ArithmCmd, *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm,
			*syntax.FlagsArithm, *syntax.Block, *syntax.IfClause, *syntax.CaseClause,
			*syntax.CaseItem, *syntax.TestClause, *syntax.BinaryTest, *syntax.UnaryTest,
			*syntax.ParenTest, *syntax.LetClause, *syntax.ArrayExpr:
		default:
			waits = true
		}
		return !waits
	})
	if waits || len(calls) > 0 && unsets { // unset may take a function away
		return true
	}
	for _, call := range calls {
		if !s.callsOwnFunc(file, call, funcs) {
			return true
		}
	}
	return false
}

// callsOwnFunc reports whether call runs a function of the script's for
// certain: a statement of the script's top level defines it before
// call, nothing of the session holds its name, and call is outside every
// function of funcs, which are all the script's. Every body of that name
// then is of what cannot wait (the walk judged them), and none recurses:
// no function calls another, nor one in a builtin's place itself.
func (s *Session) callsOwnFunc(file *syntax.File, call *syntax.CallExpr, funcs []*syntax.FuncDecl) bool {
	name := call.Args[0].Lit()
	if name == "" || s.tools[name] != nil || s.runner.Funcs[name] != nil {
		return false
	}
	if _, alias := mvdanpriv.Alias(s.runner, name); alias && mvdanpriv.ExpandAliases(s.runner) {
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

// mayWait reports whether the command name may wait: anything but one
// of nowaitBuiltins that the session runs as the shell's own.
func (s *Session) mayWait(name string) bool {
	if !nowaitBuiltins[name] || s.tools[name] != nil || s.runner.Funcs[name] != nil {
		return true
	}
	if !mvdanpriv.ExpandAliases(s.runner) {
		return false
	}
	_, alias := mvdanpriv.Alias(s.runner, name)
	return alias
}

// nowaitBuiltins are the shell's builtins that neither read input nor
// wait for anything.
var nowaitBuiltins = map[string]bool{
	"echo": true, "printf": true, "true": true, "false": true, ":": true,
	"cd": true, "pwd": true, "export": true, "unset": true, "readonly": true,
	"declare": true, "typeset": true, "local": true, "shift": true, "set": true,
	"test": true, "[": true, "exit": true,
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
