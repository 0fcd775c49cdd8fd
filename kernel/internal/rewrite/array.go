package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// arrayRewrite gathers, during the walk, the array constructs mvdan/sh
// runs otherwise than bash, and rewrites them once the walk is done
// (finish): the rewrites share words between the forms they make, which
// no other rewrite may meet twice. Each is in docs/mvdan.md:
//
//   - `NAME=([k]=v …)`, `NAME=()` and `NAME+=([k]=v …)` make an
//     associative array indexed, or are dropped (assocAssign): they
//     become a case on the array's kind, run as written for an indexed
//     array and in the forms mvdan/sh gets right for an associative one;
//   - `NAME[k]+=STR` appends to element 0 (appendElement): it becomes
//     `NAME[k]=${NAME[k]}STR`;
//   - `(( a[k]++ ))` and the other arithmetic writes to an element panic
//     (elementWrite): the statement becomes the assignment and a test of
//     the value the expression had;
//   - `[[ -v NAME[k] ]]` is always false (elementTest): it becomes
//     `[[ -n ${NAME[k]+x} ]]`;
//   - `${#NAME[@]}` of an associative array is 1: for a name the script
//     declares -A it becomes `$(array-count NAME[@])`, the internal
//     command that counts it.
type arrayRewrite struct {
	stmts   []*syntax.Stmt
	appends []*syntax.Assign
	tests   []*syntax.UnaryTest
	words   [][]syntax.WordPart // the parts of words holding ${#NAME[@]}
	assoc   map[string]bool     // the names declared -A, or assigned a list whose first key is quoted
	// namerefs are the names declared -n: their ${#NAME[@]} is counted
	// too, and package rewrite's nameref.go rewrites their reads of the
	// whole array and their writes to elements.
	namerefs map[string]bool
	elems    []*syntax.Stmt // the statements of one assignment to an element
}

// note gathers n when it is a construct finish rewrites.
func (a *arrayRewrite) note(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.Stmt:
		switch c := n.Cmd.(type) {
		case *syntax.CallExpr:
			if dispatchedAssign(c) != nil {
				a.stmts = append(a.stmts, n)
			}
			if len(c.Args) == 0 && len(c.Assigns) == 1 && c.Assigns[0].Index != nil {
				a.elems = append(a.elems, n) // NAME[k]+=v too, once appendElement made it NAME[k]=…
			}
		case *syntax.ArithmCmd:
			if shast.ElementWrite(c.X) != nil || nameWrite(c.X) != nil {
				a.stmts = append(a.stmts, n)
			}
		case *syntax.DeclClause:
			if refNames(c) != nil {
				a.stmts = append(a.stmts, n)
			}
		}
	case *syntax.Assign:
		if shast.AppendsElement(n) {
			a.appends = append(a.appends, n)
		}
		if n.Name != nil && shast.QuotedFirstKey(n) {
			a.assoc = addName(a.assoc, n.Name.Value)
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet {
			if _, _, ok := shast.ElementOperand(n.X); ok {
				a.tests = append(a.tests, n)
			}
		}
	case *syntax.DeclClause:
		a.declared(n)
	case *syntax.Word:
		if countsElems(n.Parts) {
			a.words = append(a.words, n.Parts)
		}
	case *syntax.DblQuoted:
		if countsElems(n.Parts) {
			a.words = append(a.words, n.Parts)
		}
	}
}

// declared splits the declaration's words of several flags, and notes
// the names it makes associative arrays (-A) or name references (-n).
func (a *arrayRewrite) declared(d *syntax.DeclClause) {
	splitFlags(d)
	kind := ""
	if d.Variant.Value == "nameref" {
		kind = "n"
	}
	for _, as := range d.Args {
		if as.Name == nil {
			if lit := orEmpty(as.Value).Lit(); strings.HasPrefix(lit, "-") {
				if i := strings.LastIndexAny(lit, "aAn"); i > 0 {
					kind = lit[i : i+1]
				}
			}
			continue
		}
		switch kind {
		case "A":
			a.assoc = addName(a.assoc, as.Name.Value)
		case "n":
			a.namerefs = addName(a.namerefs, as.Name.Value)
		}
	}
}

func addName(names map[string]bool, name string) map[string]bool {
	if names == nil {
		names = make(map[string]bool)
	}
	names[name] = true
	return names
}

// splitFlags makes each word of several flags of d, such as -rA or -gA,
// one word a flag: mvdan/sh takes the first flag of a word only, so that
// `declare -rA m=([k]=v)` made an indexed array.
func splitFlags(d *syntax.DeclClause) {
	var args []*syntax.Assign
	for i, as := range d.Args {
		lit := orEmpty(as.Value).Lit()
		if as.Name != nil || len(lit) < 3 || lit[0] != '-' || strings.Trim(lit[1:], "aAnrxg") != "" {
			if args != nil {
				args = append(args, as)
			}
			continue
		}
		if args == nil {
			args = append(make([]*syntax.Assign, 0, len(d.Args)+2), d.Args[:i]...)
		}
		for _, f := range lit[1:] {
			args = append(args, &syntax.Assign{Naked: true, Value: shast.LitWord("-" + string(f))})
		}
	}
	if args != nil {
		d.Args = args
	}
}

func (a *arrayRewrite) finish() {
	for _, st := range a.stmts {
		switch c := st.Cmd.(type) {
		case *syntax.CallExpr:
			st.Cmd = assocAssign(st, dispatchedAssign(c))
		case *syntax.ArithmCmd:
			pe := shast.ElementWrite(c.X)
			if pe == nil {
				if pe = nameWrite(c.X); !a.namerefs[pe.Param.Value] {
					continue // a plain name's write, which mvdan/sh runs
				}
			}
			b := elementWrite(st, c, pe)
			st.Cmd = b
			a.elems = append(a.elems, b.Stmts[0])
		case *syntax.DeclClause:
			st.Cmd = unsetRefs(st, refNames(c))
		}
	}
	for _, as := range a.appends {
		appendElement(as)
	}
	for _, t := range a.tests {
		elementTest(t)
	}
	for _, st := range a.elems {
		if as := elementAssign(st.Cmd.(*syntax.CallExpr)); as != nil && a.namerefs[as.Name.Value] {
			st.Cmd = namerefElementWrite(st, as)
		}
	}
	for _, parts := range a.words {
		for i, p := range parts {
			if name, sub, ok := elemCount(p); ok && (a.assoc[name] || a.namerefs[name]) {
				parts[i] = &syntax.CmdSubst{Left: p.Pos(), Right: p.End(), Stmts: []*syntax.Stmt{
					shast.CallStmt(p.Pos(), shast.LitWord(shast.CmdArrayCount), shast.LitWord(name+"["+sub+"]")),
				}}
			}
		}
	}
}

// dispatchedAssign is the assignment of c that assocAssign rewrites: c's
// only one, when it is dispatchable; nil for any other.
func dispatchedAssign(c *syntax.CallExpr) *syntax.Assign {
	if len(c.Args) != 0 || len(c.Assigns) != 1 || !shast.KeyedList(c.Assigns[0]) {
		return nil
	}
	return c.Assigns[0]
}

func orEmpty(w *syntax.Word) *syntax.Word {
	if w == nil {
		return &syntax.Word{}
	}
	return w
}

// assocAssign is the case on the kind of as's array that st, a statement
// of as alone, becomes: as written for any array but an associative one,
// for which `m=([k]=v …)` quotes its first key (mvdan/sh then makes the
// array associative), `m+=([k]=v …)` sets each element in turn, and
// `m=()` sets and unsets one key.
func assocAssign(st *syntax.Stmt, as *syntax.Assign) syntax.Command {
	name := as.Name.Value
	pos := st.Position
	var assoc []*syntax.Stmt
	switch {
	case len(as.Array.Elems) == 0:
		const key = "_"
		assoc = []*syntax.Stmt{
			{Position: pos, Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{{
				Name: as.Name, Array: &syntax.ArrayExpr{Elems: []*syntax.ArrayElem{{
					Index: &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: key}}},
				}}},
			}}}},
			shast.CallStmt(pos, shast.LitWord("unset"), shast.LitWord(name+"["+key+"]")),
		}
	case as.Append:
		c := &syntax.CallExpr{}
		for _, e := range as.Array.Elems {
			c.Assigns = append(c.Assigns, &syntax.Assign{Name: as.Name, Index: e.Index, Value: e.Value})
		}
		assoc = []*syntax.Stmt{{Position: pos, Cmd: c}}
	default:
		elems := append([]*syntax.ArrayElem(nil), as.Array.Elems...)
		first := *elems[0]
		first.Index = quotedKey(first.Index.(*syntax.Word))
		elems[0] = &first
		quoted := *as
		quoted.Array = &syntax.ArrayExpr{Lparen: as.Array.Lparen, Rparen: as.Array.Rparen, Elems: elems}
		assoc = []*syntax.Stmt{{Position: pos, Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{&quoted}}}}
	}
	kind := &syntax.CmdSubst{Stmts: []*syntax.Stmt{
		shast.CallStmt(pos, shast.LitWord(shast.CmdArrayKind), shast.LitWord(name)),
	}}
	return &syntax.CaseClause{
		Case: pos, In: pos, Esac: pos,
		Word: &syntax.Word{Parts: []syntax.WordPart{kind}},
		Items: []*syntax.CaseItem{
			{Op: syntax.Break, Patterns: []*syntax.Word{shast.LitWord("A")}, Stmts: assoc},
			{Op: syntax.Break, Patterns: []*syntax.Word{shast.LitWord("*")}, Stmts: []*syntax.Stmt{{Position: pos, Cmd: st.Cmd}}},
		},
	}
}

// quotedKey is the key w in double quotes, unless it is quoted whole.
func quotedKey(w *syntax.Word) *syntax.Word {
	if len(w.Parts) == 1 {
		switch w.Parts[0].(type) {
		case *syntax.DblQuoted, *syntax.SglQuoted:
			return w
		}
	}
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Left: w.Pos(), Right: w.End(), Parts: w.Parts}}}
}

// AsWritten is the command the script wrote where the rewrites of arrays
// and indirections made c; c itself for any other command.
func AsWritten(c syntax.Command) syntax.Command {
	return assignAsWritten(NamerefAsWritten(elementWriteAsWritten(IndirectAsWritten(c))))
}

// assignAsWritten is the assignment of a case on an array's kind
// (assocAssign); c itself for any other command.
func assignAsWritten(c syntax.Command) syntax.Command {
	cc, ok := c.(*syntax.CaseClause)
	if !ok || len(cc.Items) != 2 || len(cc.Word.Parts) != 1 {
		return c
	}
	cs, ok := cc.Word.Parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return c
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != shast.CmdArrayKind {
		return c
	}
	return cc.Items[1].Stmts[0].Cmd
}

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

// countsElems reports whether parts hold a ${#NAME[@]}.
func countsElems(parts []syntax.WordPart) bool {
	for _, p := range parts {
		if _, _, ok := elemCount(p); ok {
			return true
		}
	}
	return false
}

// elemCount is the array p counts: ${#NAME[@]} or ${#NAME[*]}.
func elemCount(p syntax.WordPart) (name, sub string, ok bool) {
	pe, ok := p.(*syntax.ParamExp)
	if !ok || !pe.Length || pe.Param == nil || pe.Index == nil {
		return "", "", false
	}
	idx, ok := pe.Index.(*syntax.Word)
	if !ok {
		return "", "", false
	}
	switch sub := idx.Lit(); sub {
	case "@", "*":
		return pe.Param.Value, sub, true
	}
	return "", "", false
}
