package kernel

import "mvdan.cc/sh/v3/syntax"

// walk is syntax.Walk: it calls f for node and, when f returns true, for
// each node below it, depth first, in the same order, each followed by
// f(nil) when its children are done. It is the static pass's own because
// syntax.Walk defers in a loop, which makes every one of its calls, once
// per node, pay for the defer machinery: a fifth of what the static pass
// of a long script cost. TestWalkAsSyntaxWalk and FuzzWalk hold the two
// to the same order.
func walk(node syntax.Node, f func(syntax.Node) bool) {
	if !f(node) {
		return
	}
	var after *syntax.Comment // walked last, after f(nil), as syntax.Walk does
	switch n := node.(type) {
	case *syntax.File:
		walkStmts(n.Stmts, f)
		walkComments(n.Last, f)
	case *syntax.Stmt:
		after = stmtChildren(n, f)
	case *syntax.Assign:
		walkSome(n.Name, f)
		if n.Value != nil {
			walkWord(n.Value, f)
		}
		walkSome(n.Index, f)
		walkSome(n.Array, f)
	case *syntax.Redirect:
		walkSome(n.N, f)
		walkWord(n.Word, f)
		walkSome(n.Hdoc, f)
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			walk(a, f)
		}
		walkWords(n.Args, f)
	case *syntax.Subshell:
		walkStmts(n.Stmts, f)
		walkComments(n.Last, f)
	case *syntax.Block:
		walkStmts(n.Stmts, f)
		walkComments(n.Last, f)
	case *syntax.IfClause:
		walkStmts(n.Cond, f)
		walkComments(n.CondLast, f)
		walkStmts(n.Then, f)
		walkComments(n.ThenLast, f)
		walkComments(n.Last, f)
		walkSome(n.Else, f)
	case *syntax.WhileClause:
		walkStmts(n.Cond, f)
		walkComments(n.CondLast, f)
		walkStmts(n.Do, f)
		walkComments(n.DoLast, f)
	case *syntax.ForClause:
		walk(n.Loop, f)
		walkStmts(n.Do, f)
		walkComments(n.DoLast, f)
	case *syntax.WordIter:
		walk(n.Name, f)
		walkWords(n.Items, f)
	case *syntax.CStyleLoop:
		walkSome(n.Init, f)
		walkSome(n.Cond, f)
		walkSome(n.Post, f)
	case *syntax.BinaryCmd:
		walk(n.X, f)
		walk(n.Y, f)
	case *syntax.FuncDecl:
		walkSome(n.Name, f)
		for _, name := range n.Names {
			walk(name, f)
		}
		walk(n.Body, f)
	case *syntax.Word:
		walkParts(n.Parts, f)
	case *syntax.DblQuoted:
		walkParts(n.Parts, f)
	case *syntax.CmdSubst:
		walkStmts(n.Stmts, f)
		walkComments(n.Last, f)
	case *syntax.ParamExp:
		walkParamExp(n, f)
	case *syntax.ArithmExp:
		walk(n.X, f)
	case *syntax.ArithmCmd:
		walk(n.X, f)
	case *syntax.BinaryArithm:
		walk(n.X, f)
		walk(n.Y, f)
	case *syntax.BinaryTest:
		walk(n.X, f)
		walk(n.Y, f)
	case *syntax.UnaryArithm:
		walk(n.X, f)
	case *syntax.UnaryTest:
		walk(n.X, f)
	case *syntax.ParenArithm:
		walk(n.X, f)
	case *syntax.FlagsArithm:
		walk(n.Flags, f)
		walkSome(n.X, f)
	case *syntax.ParenTest:
		walk(n.X, f)
	case *syntax.CaseClause:
		walk(n.Word, f)
		for _, item := range n.Items {
			walk(item, f)
		}
		walkComments(n.Last, f)
	case *syntax.CaseItem:
		after = leadingComments(n.Comments, n.Pos(), f)
		walkWords(n.Patterns, f)
		walkStmts(n.Stmts, f)
		walkComments(n.Last, f)
	case *syntax.TestClause:
		walk(n.X, f)
	case *syntax.DeclClause:
		for _, a := range n.Args {
			walk(a, f)
		}
	case *syntax.ArrayExpr:
		for _, e := range n.Elems {
			walk(e, f)
		}
		walkComments(n.Last, f)
	case *syntax.ArrayElem:
		after = leadingComments(n.Comments, n.Pos(), f)
		walkSome(n.Index, f)
		walkSome(n.Value, f)
	case *syntax.ExtGlob:
		walk(n.Pattern, f)
	case *syntax.ProcSubst:
		walkStmts(n.Stmts, f)
		walkComments(n.Last, f)
	case *syntax.TimeClause:
		walkSome(n.Stmt, f)
	case *syntax.CoprocClause:
		walkSome(n.Name, f)
		walk(n.Stmt, f)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			walk(x, f)
		}
	case *syntax.TestDecl:
		walk(n.Description, f)
		walk(n.Body, f)
	case *syntax.Comment, *syntax.Lit, *syntax.SglQuoted:
	default:
		// A kind of node this walk does not know (a newer mvdan/sh):
		// syntax.Walk walks below it, and ends it.
		seen := false
		syntax.Walk(node, func(m syntax.Node) bool {
			if !seen {
				seen = true // node itself, which f saw already
				return true
			}
			return f(m)
		})
		return
	}
	f(nil)
	if after != nil {
		walk(after, f)
	}
}

// leadingComments walks a case item's or an array element's comments up
// to the first after pos and returns that one, which syntax.Walk visits
// last, and after which it visits none. (A statement's rule is its end.)
func leadingComments(comments []syntax.Comment, pos syntax.Pos, f func(syntax.Node) bool) *syntax.Comment {
	for i := range comments {
		if c := &comments[i]; c.Pos().After(pos) {
			return c
		}
		walk(&comments[i], f)
	}
	return nil
}

func walkParamExp(n *syntax.ParamExp, f func(syntax.Node) bool) {
	walkSome(n.Flags, f)
	walkSome(n.Param, f)
	walkSome(n.NestedParam, f)
	walkSome(n.Index, f)
	if s := n.Slice; s != nil {
		walkSome(s.Offset, f)
		walkSome(s.Length, f)
	}
	if r := n.Repl; r != nil {
		walkSome(r.Orig, f)
		walkSome(r.With, f)
	}
	if e := n.Exp; e != nil {
		walkSome(e.Word, f)
	}
}

// walkSome walks n unless it is nil: a nil pointer, or a nil interface
// of a field that holds any of several kinds.
func walkSome[N interface {
	syntax.Node
	comparable
}](n N, f func(syntax.Node) bool) {
	var none N
	if n != none {
		walk(n, f)
	}
}

// The nodes a script is full of, statements, words and literals, are
// walked below without walk's switch: their kind is known.

func walkStmts(stmts []*syntax.Stmt, f func(syntax.Node) bool) {
	for _, st := range stmts {
		if f(st) {
			after := stmtChildren(st, f)
			f(nil)
			if after != nil {
				walk(after, f)
			}
		}
	}
}

// stmtChildren walks a statement's comments up to the first past its
// end, its command and its redirections; it returns that comment, which
// syntax.Walk visits last.
func stmtChildren(n *syntax.Stmt, f func(syntax.Node) bool) *syntax.Comment {
	var after *syntax.Comment
	for i := range n.Comments {
		if c := &n.Comments[i]; !n.End().After(c.Pos()) {
			after = c
			break
		}
		walk(&n.Comments[i], f)
	}
	if n.Cmd != nil {
		walk(n.Cmd, f)
	}
	for _, r := range n.Redirs {
		walk(r, f)
	}
	return after
}

func walkWords(words []*syntax.Word, f func(syntax.Node) bool) {
	for _, w := range words {
		walkWord(w, f)
	}
}

func walkWord(w *syntax.Word, f func(syntax.Node) bool) {
	if f(w) {
		walkParts(w.Parts, f)
		f(nil)
	}
}

func walkParts(parts []syntax.WordPart, f func(syntax.Node) bool) {
	for _, p := range parts {
		if _, lit := p.(*syntax.Lit); lit {
			if f(p) {
				f(nil)
			}
			continue
		}
		walk(p, f)
	}
}

func walkComments(comments []syntax.Comment, f func(syntax.Node) bool) {
	for i := range comments {
		walk(&comments[i], f)
	}
}
