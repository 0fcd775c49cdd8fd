package kernel

import "mvdan.cc/sh/v3/syntax"

// rewriteScript rewrites, in one walk of file, the constructs that
// mvdan/sh runs differently from bash into ones it runs as bash does
// (docs/embedding.md, "Bash compatibility"), and the expansions shelter
// answers itself (rewriteExpansion). Each rewrite keeps bash's meaning for
// every input it touches and leaves alone what it cannot prove.
func rewriteScript(file *syntax.File) {
	var loops loopRewrite
	syntax.Walk(file, func(n syntax.Node) bool {
		rewriteExpansion(n)
		guardArithmNode(n)
		switch n := n.(type) {
		case *syntax.File:
			loops.list(&n.Stmts)
		case *syntax.Block:
			loops.list(&n.Stmts)
		case *syntax.Subshell:
			loops.list(&n.Stmts)
		case *syntax.IfClause:
			loops.list(&n.Cond)
			loops.list(&n.Then)
		case *syntax.WhileClause:
			loops.list(&n.Cond)
			loops.list(&n.Do)
		case *syntax.ForClause:
			loops.list(&n.Do)
		case *syntax.CaseItem:
			loops.list(&n.Stmts)
		case *syntax.CmdSubst:
			loops.list(&n.Stmts)
		case *syntax.ProcSubst:
			loops.list(&n.Stmts)
		case *syntax.Stmt:
			loops.alone(n)
			rewriteDeclQuery(n)
		case *syntax.BinaryTest:
			quoteRegexLiterals(n)
		case *syntax.Assign:
			unescapeAssignValue(n)
		}
		return true
	})
}
