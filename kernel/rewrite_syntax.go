package kernel

import "mvdan.cc/sh/v3/syntax"

// rewriteScript rewrites, in one walk of file, the constructs that
// mvdan/sh runs differently from bash into ones it runs as bash does
// (docs/embedding.md, "Bash compatibility"), and the expansions shelter
// answers itself (rewriteExpansion). Each rewrite keeps bash's meaning for
// every input it touches and leaves alone what it cannot prove.
func rewriteScript(file *syntax.File) {
	var loops loopRewrite
	// nested rewrites a list below the top level: its loops, and its
	// backgrounds for kill (markBackgrounds).
	nested := func(stmts *[]*syntax.Stmt) {
		loops.list(stmts)
		markBackgrounds(stmts)
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		rewriteExpansion(n)
		guardArithmNode(n)
		switch n := n.(type) {
		case *syntax.File:
			loops.list(&n.Stmts)
		case *syntax.Block:
			nested(&n.Stmts)
		case *syntax.Subshell:
			nested(&n.Stmts)
		case *syntax.IfClause:
			nested(&n.Cond)
			nested(&n.Then)
		case *syntax.WhileClause:
			nested(&n.Cond)
			nested(&n.Do)
		case *syntax.ForClause:
			nested(&n.Do)
		case *syntax.CaseItem:
			nested(&n.Stmts)
		case *syntax.CmdSubst:
			nested(&n.Stmts)
		case *syntax.ProcSubst:
			nested(&n.Stmts)
		case *syntax.Stmt:
			loops.alone(n)
			rewriteDeclQuery(n)
		case *syntax.ParamExp:
			renameBang(n)
		case *syntax.BinaryTest:
			quoteRegexLiterals(n)
		case *syntax.Assign:
			unescapeAssignValue(n)
		}
		return true
	})
}

// rewritable reports whether n is a node rewriteScript may change: a
// script without one runs as parsed (validate asks it of every node). It
// names the nodes the walk above acts on.
func rewritable(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp,
		*syntax.Assign, *syntax.LetClause, *syntax.TestClause, *syntax.ForClause, *syntax.DeclClause:
		return true
	case *syntax.Stmt:
		return n.Background
	}
	return false
}
