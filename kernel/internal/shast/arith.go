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
