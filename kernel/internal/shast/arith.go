package shast

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ArithAssignOp is the binary operator an arithmetic assignment applies,
// "" for plain `=`.
func ArithAssignOp(op syntax.BinAritOperator) (string, bool) {
	switch op {
	case syntax.Assgn:
		return "", true
	case syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return strings.TrimSuffix(op.String(), "="), true
	}
	return "", false
}

// PlainName reports whether x is a literal word, as a name is: the one
// operand an arithmetic write may have (mvdan/sh panics on any other).
func PlainName(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && w.Lit() != ""
}

// ElementWrite is the array element that x, an arithmetic expression,
// writes as a whole: `a[i]++`, `--m[$k]`, `c[$w] += 2`, `a[0] = 7`; nil
// for any other expression. The element's subscript has no side effect
// (literals, quotes, plain parameters and the operators that assign
// nothing), so that it can be read and written again with the same
// meaning. An associative array's subscript that is not a word is refused
// by the static pass (static.CrashCheck) when the array is known.
func ElementWrite(x syntax.ArithmExpr) *syntax.ParamExp {
	switch x := x.(type) {
	case *syntax.UnaryArithm:
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			return element(x.X)
		}
	case *syntax.BinaryArithm:
		if _, ok := ArithAssignOp(x.Op); ok {
			return element(x.X)
		}
	}
	return nil
}

// element is the array element x names, or nil.
func element(x syntax.ArithmExpr) *syntax.ParamExp {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return nil
	}
	pe, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || !syntax.ValidName(pe.Param.Value) || pe.Excl || pe.Length || pe.Width ||
		pe.Slice != nil || pe.Repl != nil || pe.Exp != nil || pe.Names != 0 {
		return nil
	}
	if !pureArith(pe.Index) {
		return nil
	}
	if idx, ok := pe.Index.(*syntax.Word); ok {
		switch idx.Lit() {
		case "@", "*":
			return nil
		}
	}
	return pe
}

// pureArith reports whether evaluating x has no side effect: no
// assignment, increment or command, only pure words (PureWord).
func pureArith(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.Word:
		return PureWord(x)
	case *syntax.ParenArithm:
		return pureArith(x.X)
	case *syntax.UnaryArithm:
		return x.Op != syntax.Inc && x.Op != syntax.Dec && pureArith(x.X)
	case *syntax.BinaryArithm:
		_, assign := ArithAssignOp(x.Op)
		return !assign && pureArith(x.X) && pureArith(x.Y)
	}
	return false
}

// PureWord reports whether expanding w has no side effect: it is made of
// literals, quotes and plain parameter expansions ($k, ${k}).
func PureWord(w *syntax.Word) bool { return pureParts(w.Parts) }

func pureParts(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !pureParts(p.Parts) {
				return false
			}
		case *syntax.ParamExp:
			if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil ||
				p.Repl != nil || p.Exp != nil || p.Names != 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
