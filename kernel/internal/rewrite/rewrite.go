package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// Script rewrites the constructs that mvdan/sh runs differently
// from bash into ones it runs as bash does (docs/embedding.md, "Bash
// compatibility"), and the expansions shelter answers itself
// (rewriteExpansion): all in one walk of file, then, in a second walk,
// the guards of what follows a break in a loop's body (guardLoopExits).
// Each rewrite keeps bash's meaning for every input it touches and leaves
// alone what it cannot prove.
func Script(file *syntax.File) {
	var loops loopRewrite
	attrs := false
	var readonly []string // the names the script makes readonly
	// nested rewrites a list below the top level: its loops, and its
	// backgrounds for kill (markBackgrounds).
	nested := func(stmts *[]*syntax.Stmt) {
		loops.list(stmts)
		markBackgrounds(stmts)
	}
	// Each node kind goes to the rewrites that act on it, in the order
	// they apply: the expansion's, the arithmetic guard, then the rest.
	shast.Walk(file, func(n syntax.Node) bool {
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
			rewriteExpansion(n)
			nested(&n.Stmts)
		case *syntax.ProcSubst:
			nested(&n.Stmts)
		case *syntax.Word:
			if len(n.Parts) > 0 {
				markProcSubsts(n)
			}
		case *syntax.Stmt:
			refuseCoproc(n)
			loops.alone(n)
			readonly = append(readonly, readonlyNames(n)...)
			splitDeclFlags(n)
			rewriteDeclQuery(n)
			rewriteDeclList(n)
			rewriteDeclPrefix(n)
			rewriteDeclOrder(n)
			rewriteLocalNames(n)
			attrs = attrs || declAttrs(n)
			rewriteLetCall(n)
		case *syntax.ParamExp:
			rewriteExpansion(n)
			guardArithmNode(n)
			renameBang(n)
		case *syntax.BinaryTest:
			quoteRegexLiterals(n)
		case *syntax.Assign:
			guardArithmNode(n)
			unescapeAssignValue(n)
		case *syntax.ArithmExp, *syntax.LetClause, *syntax.TestClause:
			guardArithmNode(n)
		}
		return true
	})
	loops.finish()
	if attrs {
		rewriteDeclAttrs(file)
	}
	if len(readonly) > 0 {
		guardReadonlyAssigns(file, readonly)
	}
	// Last: a guard's two branches share their list, which no rewrite
	// may meet twice.
	guardLoopExits(file)
}

// Rewritable reports whether n is a node Script may change: a
// script without one runs as parsed (the kernel's static pass asks it of every node). It
// names the nodes the walk above acts on.
//
// It is exact for the nodes every script is full of, so that a script of
// plain commands, assignments and expansions is not walked again:
// a parameter expansion is changed only for $DIRSTACK, $!, an index or a
// slice; an assignment only for an index or a backslash in its value; a
// command substitution only in the $(< FILE) shape; a for loop only in
// the (( )) form; an arithmetic expansion only for an operator that can
// fail or a constant bash rejects (see guardExpr); a [[ ]] only for an
// integer comparison or a regex; a command only for break or continue
// (guardLoopExits). The loops and backgrounds of a nested list are nodes
// of their own.
func Rewritable(n syntax.Node) bool {
	// The kinds first, in a switch small enough to inline into the walk
	// that asks it of every node; then the node itself.
	switch n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp, *syntax.CoprocClause,
		*syntax.Assign, *syntax.LetClause, *syntax.BinaryTest, *syntax.ForClause, *syntax.DeclClause, *syntax.Stmt,
		*syntax.CallExpr:
		return RewritableNode(n)
	}
	return false
}

func RewritableNode(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.ProcSubst, *syntax.LetClause, *syntax.DeclClause, *syntax.CoprocClause:
		// A coprocess is refused where it runs (refuseCoproc).
		return true
	case *syntax.BinaryTest:
		// What a [[ ]] changes: an integer comparison's operands
		// (guardArithmNode) and a regex (quoteRegexLiterals).
		return intComparison(n.Op) || n.Op == syntax.TsReMatch
	case *syntax.ArithmExp:
		return n.Left.IsValid() && mayGuard(n.X)
	case *syntax.ParamExp:
		return n.Index != nil || n.Slice != nil ||
			n.Param != nil && (n.Param.Value == "DIRSTACK" || n.Param.Value == "!")
	case *syntax.Assign:
		return n.Index != nil || !n.Naked && n.Value != nil && hasBackslashLit(n.Value)
	case *syntax.CmdSubst:
		return len(n.Stmts) == 1 && n.Stmts[0].Cmd == nil
	case *syntax.ForClause:
		_, cstyle := n.Loop.(*syntax.CStyleLoop)
		return cstyle
	case *syntax.Stmt:
		return n.Background
	case *syntax.CallExpr:
		// A break or continue, which guardLoopExits may guard the rest of
		// its list for; a declaration with prefix assignments
		// (rewriteDeclPrefix).
		return exitsLoops(n, 0) || declPrefixed(n)
	}
	return false
}

// mayGuard reports whether guardExpr may change x: it goes where
// guardExpr goes and finds an operator that can fail or a constant bash
// rejects.
func mayGuard(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.Word:
		_, bad := badConstant(x)
		return bad
	case *syntax.ParenArithm:
		return mayGuard(x.X)
	case *syntax.UnaryArithm:
		return x.Op != syntax.Inc && x.Op != syntax.Dec && mayGuard(x.X)
	case *syntax.BinaryArithm:
		if failingOp(x.Op) {
			return true
		}
		if _, assign := shast.ArithAssignOp(x.Op); !assign && mayGuard(x.X) {
			return true
		}
		return mayGuard(x.Y)
	}
	return false
}

// hasBackslashLit reports whether a literal part of w holds a backslash.
func hasBackslashLit(w *syntax.Word) bool {
	for _, part := range w.Parts {
		if lit, ok := part.(*syntax.Lit); ok && strings.Contains(lit.Value, `\`) {
			return true
		}
	}
	return false
}
