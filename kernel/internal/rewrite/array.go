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
//     become an if on the array's kind, run as written for an indexed
//     array and in the forms mvdan/sh gets right for an associative one;
//   - `NAME[k]+=STR` appends to element 0 (appendElement, element.go): it
//     becomes `NAME[k]=${NAME[k]}STR`;
//   - `(( a[k]++ ))` and the other arithmetic writes to an element panic,
//     and those to a name reference write the reference (elementWrite):
//     the statement becomes the assignment and a test of the value the
//     expression had;
//   - `[[ -v NAME[k] ]]` is always false (elementTest): it becomes
//     `[[ -n ${NAME[k]+x} ]]`;
//   - `${#NAME[@]}` of an associative array is 1: for a name the script
//     declares -A or -n it becomes `$(array-count NAME[@])`, the internal
//     command that counts it;
//   - a declaration of name references assigns through the old
//     reference (unsetRefs, nameref.go); an element's assignment through
//     a reference replaces the array (namerefElementWrite).
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

// declared notes the names a declaration makes associative arrays (-A)
// or name references (-n).
func (a *arrayRewrite) declared(d *syntax.DeclClause) {
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

func (a *arrayRewrite) finish() {
	// Each statement is judged again: a rewrite that runs before this one
	// (the readonly guard, the attributes') may have changed it.
	for _, st := range a.stmts {
		switch c := st.Cmd.(type) {
		case *syntax.CallExpr:
			as := dispatchedAssign(c)
			if as == nil {
				continue
			}
			ic := assocAssign(st, as)
			st.Cmd = ic
			if as.Append {
				a.elems = append(a.elems, ic.Then...)
			}
		case *syntax.ArithmCmd:
			pe := shast.ElementWrite(c.X)
			if pe == nil {
				// A plain name's write, which mvdan/sh runs but for a
				// name reference.
				if pe = nameWrite(c.X); pe == nil || !a.namerefs[pe.Param.Value] {
					continue
				}
			}
			b := elementWrite(st, c, pe)
			st.Cmd = b
			a.elems = append(a.elems, b.Stmts[0])
		case *syntax.DeclClause:
			if names := refNames(c); names != nil {
				st.Cmd = unsetRefs(st, names)
			}
		}
	}
	for _, as := range a.appends {
		if shast.AppendsElement(as) { // still: the attributes' rewrite may have taken it
			appendElement(as)
		}
	}
	for _, t := range a.tests {
		elementTest(t)
	}
	for _, st := range a.elems {
		c, ok := st.Cmd.(*syntax.CallExpr) // not when a readonly guard took it
		if !ok {
			continue
		}
		if as := elementAssign(c); as != nil && a.namerefs[as.Name.Value] {
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

// assocAssign is the if on the kind of as's array that st, a statement
// of as alone, becomes: as written for any array but an associative one,
// for which `m=([k]=v …)` quotes its first key (mvdan/sh then makes the
// array associative), `m+=([k]=v …)` sets each element in turn (a
// statement each), and
// `m=()` is the internal assoc-reset command. The condition is the
// internal array-assoc command; a `$?` the assignment reads is the status
// before it, which it keeps in IndirectStatusVar.
func assocAssign(st *syntax.Stmt, as *syntax.Assign) *syntax.IfClause {
	name := as.Name.Value
	pos := st.Position
	var assoc []*syntax.Stmt
	switch {
	case len(as.Array.Elems) == 0:
		assoc = []*syntax.Stmt{shast.CallStmt(pos, shast.LitWord(shast.CmdAssocReset), shast.LitWord(name))}
	case as.Append:
		// One statement an element, which the nameref rewrite may take.
		for _, e := range as.Array.Elems {
			assoc = append(assoc, &syntax.Stmt{Position: pos, Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{{Name: as.Name, Index: e.Index, Value: e.Value}}}})
		}
	default:
		elems := append([]*syntax.ArrayElem(nil), as.Array.Elems...)
		first := *elems[0]
		first.Index = quotedKey(first.Index.(*syntax.Word))
		elems[0] = &first
		quoted := *as
		quoted.Array = &syntax.ArrayExpr{Lparen: as.Array.Lparen, Rparen: as.Array.Rparen, Elems: elems}
		assoc = []*syntax.Stmt{{Position: pos, Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{&quoted}}}}
	}
	test := []*syntax.Word{shast.LitWord(shast.CmdArrayAssoc), shast.LitWord(name)}
	if statusFromVar(as) {
		test = append(test, shast.QuotedParam("?"))
	}
	return &syntax.IfClause{
		Position: pos, ThenPos: pos, FiPos: pos,
		Cond: []*syntax.Stmt{shast.CallStmt(pos, test...)},
		Then: assoc,
		Else: &syntax.IfClause{Position: pos, FiPos: pos, Then: []*syntax.Stmt{{Position: pos, Cmd: st.Cmd}}},
	}
}

// statusFromVar makes as read $? (outside a command substitution, whose
// $? is its own) from IndirectStatusVar, and reports whether it reads it
// at all.
func statusFromVar(as *syntax.Assign) bool {
	found := false
	shast.Walk(as, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			return false
		case *syntax.ParamExp:
			if n.Param != nil && n.Param.Value == "?" && !n.Excl && n.Index == nil {
				n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: IndirectStatusVar}
				n.Short = false
				found = true
			}
		}
		return true
	})
	return found
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

// assignAsWritten is the assignment of an if on an array's kind
// (assocAssign); c itself for any other command.
func assignAsWritten(c syntax.Command) syntax.Command {
	ic, ok := c.(*syntax.IfClause)
	if !ok || len(ic.Cond) != 1 || ic.Else == nil || len(ic.Else.Then) != 1 {
		return c
	}
	call, ok := ic.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != shast.CmdArrayAssoc {
		return c
	}
	return ic.Else.Then[0].Cmd
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
