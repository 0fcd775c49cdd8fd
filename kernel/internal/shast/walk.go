package shast

import "mvdan.cc/sh/v3/syntax"

// Walk is syntax.Walk: it calls f for node and, when f returns true, for
// each node below it, depth first, in the same order, each followed by
// f(nil) when its children are done. It is the static pass's own because
// syntax.Walk defers in a loop, which makes every one of its calls, once
// per node, pay for the defer machinery: a fifth of what the static pass
// of a long script cost. TestWalkAsSyntaxWalk and FuzzWalk hold the two
// to the same order.
func Walk(node syntax.Node, f func(syntax.Node) bool) {
	w := walker{f: f, all: true}
	w.node(node)
}

// WalkBranches is Walk for a visitor that acts on neither words nor
// literals, and never on a node's end: it calls f for every other node,
// in Walk's order, and neither for words, literals nor f(nil), which are
// most of a script's calls. TestWalkBranchesAsWalk holds it to Walk.
func WalkBranches(node syntax.Node, f func(syntax.Node) bool) {
	w := walker{f: f}
	w.node(node)
}

// walker is one walk: its visitor, and whether it calls it for every node.
type walker struct {
	f   func(syntax.Node) bool
	all bool
}

// end ends a node whose children are done.
func (w *walker) end() {
	if w.all {
		w.f(nil)
	}
}

// visit calls f for a node of syntax.Walk's, unless the walk leaves it out.
func (w *walker) visit(n syntax.Node) bool {
	if !w.all {
		switch n.(type) {
		case nil, *syntax.Word, *syntax.Lit:
			return true
		}
	}
	return w.f(n)
}

func (w *walker) node(node syntax.Node) {
	switch n := node.(type) {
	case *syntax.Word:
		w.word(n)
		return
	case *syntax.Lit:
		if w.all && w.f(n) {
			w.f(nil)
		}
		return
	}
	if !w.f(node) {
		return
	}
	var after *syntax.Comment // walked last, after f(nil), as syntax.Walk does
	switch n := node.(type) {
	case *syntax.File:
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.Stmt:
		after = w.stmtChildren(n)
	case *syntax.Assign:
		walkSome(w, n.Name)
		if n.Value != nil {
			w.word(n.Value)
		}
		walkSome(w, n.Index)
		walkSome(w, n.Array)
	case *syntax.Redirect:
		walkSome(w, n.N)
		w.word(n.Word)
		walkSome(w, n.Hdoc)
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			w.node(a)
		}
		w.words(n.Args)
	case *syntax.Subshell:
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.Block:
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.IfClause:
		w.stmts(n.Cond)
		w.comments(n.CondLast)
		w.stmts(n.Then)
		w.comments(n.ThenLast)
		w.comments(n.Last)
		walkSome(w, n.Else)
	case *syntax.WhileClause:
		w.stmts(n.Cond)
		w.comments(n.CondLast)
		w.stmts(n.Do)
		w.comments(n.DoLast)
	case *syntax.ForClause:
		w.node(n.Loop)
		w.stmts(n.Do)
		w.comments(n.DoLast)
	case *syntax.WordIter:
		w.node(n.Name)
		w.words(n.Items)
	case *syntax.CStyleLoop:
		walkSome(w, n.Init)
		walkSome(w, n.Cond)
		walkSome(w, n.Post)
	case *syntax.BinaryCmd:
		w.node(n.X)
		w.node(n.Y)
	case *syntax.FuncDecl:
		walkSome(w, n.Name)
		for _, name := range n.Names {
			w.node(name)
		}
		w.node(n.Body)
	case *syntax.DblQuoted:
		w.parts(n.Parts)
	case *syntax.CmdSubst:
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.ParamExp:
		w.paramExp(n)
	case *syntax.ArithmExp:
		w.node(n.X)
	case *syntax.ArithmCmd:
		w.node(n.X)
	case *syntax.BinaryArithm:
		w.node(n.X)
		w.node(n.Y)
	case *syntax.BinaryTest:
		w.node(n.X)
		w.node(n.Y)
	case *syntax.UnaryArithm:
		w.node(n.X)
	case *syntax.UnaryTest:
		w.node(n.X)
	case *syntax.ParenArithm:
		w.node(n.X)
	case *syntax.FlagsArithm:
		w.node(n.Flags)
		walkSome(w, n.X)
	case *syntax.ParenTest:
		w.node(n.X)
	case *syntax.CaseClause:
		w.node(n.Word)
		for _, item := range n.Items {
			w.node(item)
		}
		w.comments(n.Last)
	case *syntax.CaseItem:
		after = w.leadingComments(n.Comments, n.Pos())
		w.words(n.Patterns)
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.TestClause:
		w.node(n.X)
	case *syntax.DeclClause:
		for _, a := range n.Args {
			w.node(a)
		}
	case *syntax.ArrayExpr:
		for _, e := range n.Elems {
			w.node(e)
		}
		w.comments(n.Last)
	case *syntax.ArrayElem:
		after = w.leadingComments(n.Comments, n.Pos())
		walkSome(w, n.Index)
		walkSome(w, n.Value)
	case *syntax.ExtGlob:
		w.node(n.Pattern)
	case *syntax.ProcSubst:
		w.stmts(n.Stmts)
		w.comments(n.Last)
	case *syntax.TimeClause:
		walkSome(w, n.Stmt)
	case *syntax.CoprocClause:
		walkSome(w, n.Name)
		w.node(n.Stmt)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			w.node(x)
		}
	case *syntax.TestDecl:
		w.node(n.Description)
		w.node(n.Body)
	case *syntax.Comment, *syntax.SglQuoted:
	default:
		walkUnknown(node, *w)
		return
	}
	w.end()
	if after != nil {
		w.node(after)
	}
}

// walkUnknown walks below a kind of node the walk does not know (a newer
// mvdan/sh) with syntax.Walk, which also ends it. It takes the walker by
// value: the closure would otherwise move every walk's walker to the heap.
func walkUnknown(node syntax.Node, w walker) {
	seen := false
	syntax.Walk(node, func(m syntax.Node) bool {
		if !seen {
			seen = true // node itself, which f saw already
			return true
		}
		return w.visit(m)
	})
}

// leadingComments walks a case item's or an array element's comments up
// to the first after pos and returns that one, which syntax.Walk visits
// last, and after which it visits none. (A statement's rule is its end.)
func (w *walker) leadingComments(comments []syntax.Comment, pos syntax.Pos) *syntax.Comment {
	for i := range comments {
		if c := &comments[i]; c.Pos().After(pos) {
			return c
		}
		w.node(&comments[i])
	}
	return nil
}

func (w *walker) paramExp(n *syntax.ParamExp) {
	walkSome(w, n.Flags)
	walkSome(w, n.Param)
	walkSome(w, n.NestedParam)
	walkSome(w, n.Index)
	if s := n.Slice; s != nil {
		walkSome(w, s.Offset)
		walkSome(w, s.Length)
	}
	if r := n.Repl; r != nil {
		walkSome(w, r.Orig)
		walkSome(w, r.With)
	}
	if e := n.Exp; e != nil {
		walkSome(w, e.Word)
	}
}

// walkSome walks n unless it is nil: a nil pointer, or a nil interface
// of a field that holds any of several kinds.
func walkSome[N interface {
	syntax.Node
	comparable
}](w *walker, n N) {
	var none N
	if n != none {
		w.node(n)
	}
}

// The nodes a script is full of, statements, words and literals, are
// walked below without walk's switch: their kind is known.

func (w *walker) stmts(stmts []*syntax.Stmt) {
	for _, st := range stmts {
		if w.f(st) {
			after := w.stmtChildren(st)
			w.end()
			if after != nil {
				w.node(after)
			}
		}
	}
}

// stmtChildren walks a statement's comments up to the first past its
// end, its command and its redirections; it returns that comment, which
// syntax.Walk visits last.
func (w *walker) stmtChildren(n *syntax.Stmt) *syntax.Comment {
	var after *syntax.Comment
	for i := range n.Comments {
		if c := &n.Comments[i]; !n.End().After(c.Pos()) {
			after = c
			break
		}
		w.node(&n.Comments[i])
	}
	if n.Cmd != nil {
		w.node(n.Cmd)
	}
	for _, r := range n.Redirs {
		w.node(r)
	}
	return after
}

func (w *walker) words(words []*syntax.Word) {
	for _, word := range words {
		w.word(word)
	}
}

func (w *walker) word(word *syntax.Word) {
	if !w.all {
		w.parts(word.Parts)
	} else if w.f(word) {
		w.parts(word.Parts)
		w.f(nil)
	}
}

func (w *walker) parts(parts []syntax.WordPart) {
	for _, p := range parts {
		if _, lit := p.(*syntax.Lit); lit {
			if w.all && w.f(p) {
				w.f(nil)
			}
			continue
		}
		w.node(p)
	}
}

func (w *walker) comments(comments []syntax.Comment) {
	for i := range comments {
		w.node(&comments[i])
	}
}
