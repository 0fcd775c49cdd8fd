package rewrite

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The rewrites of one element's write and test (see arrayRewrite):
// NAME[k]+=STR, (( a[k]++ )) and its kin, and [[ -v NAME[k] ]].

// appendElement makes `NAME[k]+=STR` the `NAME[k]=${NAME[k]}STR` it
// means, for both kinds of array.
func appendElement(as *syntax.Assign) {
	idx := *as.Index.(*syntax.Word)
	elem := &syntax.ParamExp{Dollar: as.Value.Pos(), Rbrace: as.Value.Pos(), Param: as.Name, Index: &idx}
	as.Value = &syntax.Word{Parts: append([]syntax.WordPart{elem}, as.Value.Parts...)}
	as.Append = false
}

// nameWrite is the variable that x, an arithmetic expression, writes as a
// whole when it is a plain name (`n++`, `n += 2`), as a parameter
// expansion; nil for any other expression. mvdan/sh's arithmetic writes a
// name reference itself, not the variable it names: for a name the script
// declares -n, elementWrite rewrites it as it does an element's write.
func nameWrite(x syntax.ArithmExpr) *syntax.ParamExp {
	var operand syntax.ArithmExpr
	switch x := x.(type) {
	case *syntax.UnaryArithm:
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			operand = x.X
		}
	case *syntax.BinaryArithm:
		if _, ok := shast.ArithAssignOp(x.Op); ok {
			operand = x.X
		}
	}
	w, ok := operand.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return nil
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || !syntax.ValidName(lit.Value) {
		return nil
	}
	return &syntax.ParamExp{Short: true, Param: lit}
}

// elementWrite is what st, the arithmetic command c that writes pe (an
// array element, or a name reference), becomes: the assignment of the
// new value, then an arithmetic command of the value the expression had,
// for the status.
func elementWrite(st *syntax.Stmt, c *syntax.ArithmCmd, pe *syntax.ParamExp) *syntax.Block {
	read := func() syntax.ArithmExpr {
		cp := *pe
		if pe.Index != nil {
			cp.Index = indexCopy(pe.Index)
		}
		return &syntax.Word{Parts: []syntax.WordPart{&cp}}
	}
	one := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "1"}}}
	var value, status syntax.ArithmExpr
	switch x := c.X.(type) {
	case *syntax.UnaryArithm:
		op, undo := syntax.Add, syntax.Sub
		if x.Op == syntax.Dec {
			op, undo = syntax.Sub, syntax.Add
		}
		value = &syntax.BinaryArithm{Op: op, X: read(), Y: one}
		status = read()
		if x.Post {
			status = &syntax.BinaryArithm{Op: undo, X: read(), Y: one}
		}
	case *syntax.BinaryArithm:
		value = x.Y
		if op, ok := binaryOf[x.Op]; ok {
			value = &syntax.BinaryArithm{Op: op, X: read(), Y: &syntax.ParenArithm{X: x.Y}}
		}
		value, _ = guardExpr(value)
		status = read()
	}
	var index syntax.ArithmExpr
	if pe.Index != nil {
		index = indexCopy(pe.Index)
	}
	set := &syntax.CallExpr{Assigns: []*syntax.Assign{{
		Name: pe.Param, Index: index,
		Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.ArithmExp{Left: c.Left, Right: c.Right, X: value}}},
	}}}
	return &syntax.Block{Lbrace: c.Left, Rbrace: c.Right, Stmts: []*syntax.Stmt{
		{Position: st.Position, Cmd: set},
		{Position: st.Position, Cmd: &syntax.ArithmCmd{Left: c.Left, Right: c.Right, X: status}},
	}}
}

// elementWriteAsWritten is the arithmetic command elementWrite made c
// of; c itself for any other command.
func elementWriteAsWritten(c syntax.Command) syntax.Command {
	b, ok := c.(*syntax.Block)
	if !ok || len(b.Stmts) != 2 {
		return c
	}
	status, ok := b.Stmts[1].Cmd.(*syntax.ArithmCmd)
	set, ok2 := NamerefAsWritten(b.Stmts[0].Cmd).(*syntax.CallExpr)
	if !ok || !ok2 || status.Left != b.Lbrace || len(set.Assigns) != 1 ||
		set.Assigns[0].Value == nil || len(set.Assigns[0].Value.Parts) != 1 {
		return c
	}
	as := set.Assigns[0]
	ae, ok := as.Value.Parts[0].(*syntax.ArithmExp)
	if !ok || ae.Left != b.Lbrace {
		return c
	}
	elem := &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{Short: true, Param: as.Name, Index: as.Index}}}
	if as.Index == nil {
		elem = &syntax.Word{Parts: []syntax.WordPart{as.Name}}
	}
	var x syntax.ArithmExpr = &syntax.BinaryArithm{Op: syntax.Assgn, X: elem, Y: ae.X}
	if v, ok := ae.X.(*syntax.BinaryArithm); ok {
		if one, ok := v.Y.(*syntax.Word); ok && one.Lit() == "1" && (v.Op == syntax.Add || v.Op == syntax.Sub) {
			op := syntax.Inc
			if v.Op == syntax.Sub {
				op = syntax.Dec
			}
			_, post := status.X.(*syntax.BinaryArithm)
			x = &syntax.UnaryArithm{Op: op, Post: post, X: elem}
		} else if paren, ok := v.Y.(*syntax.ParenArithm); ok {
			for assign, op := range binaryOf {
				if op == v.Op {
					x = &syntax.BinaryArithm{Op: assign, X: elem, Y: paren.X}
				}
			}
		}
	}
	return &syntax.ArithmCmd{Left: status.Left, Right: status.Right, X: x}
}

// indexCopy is x, not nil, for one more place: a word is copied, an expression
// shared (no rewrite changes a subscript's expression after this one).
func indexCopy(x syntax.ArithmExpr) syntax.ArithmExpr {
	if w, ok := x.(*syntax.Word); ok {
		cp := *w
		return &cp
	}
	return x
}

// binaryOf is the operator each compound arithmetic assignment applies.
var binaryOf = map[syntax.BinAritOperator]syntax.BinAritOperator{
	syntax.AddAssgn: syntax.Add, syntax.SubAssgn: syntax.Sub, syntax.MulAssgn: syntax.Mul,
	syntax.QuoAssgn: syntax.Quo, syntax.RemAssgn: syntax.Rem, syntax.AndAssgn: syntax.And,
	syntax.OrAssgn: syntax.Or, syntax.XorAssgn: syntax.Xor, syntax.ShlAssgn: syntax.Shl,
	syntax.ShrAssgn: syntax.Shr,
}

// elementTest makes t, `-v NAME[k]`, the `-n ${NAME[k]+x}` it means.
func elementTest(t *syntax.UnaryTest) {
	name, idx, _ := shast.ElementOperand(t.X)
	w := t.X.(*syntax.Word)
	t.Op = syntax.TsNempStr
	t.X = &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{
		Dollar: w.Pos(), Rbrace: w.End(),
		Param: &syntax.Lit{ValuePos: w.Pos(), ValueEnd: w.Pos(), Value: name}, Index: idx,
		Exp: &syntax.Expansion{Op: syntax.AlternateUnset, Word: shast.LitWord("x")},
	}}}
}
