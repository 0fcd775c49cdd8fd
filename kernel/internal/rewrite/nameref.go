package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// mvdan/sh writes `ref[k]=v`, ref a name reference, as if the target
// were empty: `declare -n r=x; r[0]=9` leaves x with the one element 9,
// and makes an associative target indexed. For a name the script
// declares -n, such a statement becomes the assignment of the value to
// NamerefValueVar and the internal nameref-set command
// (shast.CmdNamerefSet), which assigns it to the element of the array
// the reference names.
//
// mvdan/sh expands "${ref[@]}" and "${!ref[@]}" of a name reference as
// one word, or nothing: a statement that holds one, for a name the script
// declares -n, runs after the internal indirect command, which copies the
// array the reference names to NamerefPrefix+ref (indirections).

// NamerefValueVar holds the value of an element's assignment through a
// name reference, for the internal nameref-set command.
const NamerefValueVar = "SHELTER_NAMEREF_VALUE"

// NamerefPrefix starts the copies of the arrays name references name:
// SHELTER_NAMEREF_ref.
const NamerefPrefix = "SHELTER_NAMEREF_"

// elementAssign is c's assignment when c assigns one element and nothing
// else: `NAME[k]=v`.
func elementAssign(c *syntax.CallExpr) *syntax.Assign {
	if len(c.Args) != 0 || len(c.Assigns) != 1 {
		return nil
	}
	as := c.Assigns[0]
	if as.Name == nil || as.Index == nil || as.Array != nil || as.Append || as.Naked {
		return nil
	}
	return as
}

// namerefElementWrite is what st, the assignment as to an element of a
// name reference, becomes.
func namerefElementWrite(st *syntax.Stmt, as *syntax.Assign) *syntax.Block {
	value := &syntax.Assign{Name: &syntax.Lit{ValuePos: as.Pos(), ValueEnd: as.Pos(), Value: NamerefValueVar}, Value: as.Value}
	if value.Value == nil {
		value.Value = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{}}}
	}
	return &syntax.Block{Lbrace: st.Position, Rbrace: st.End(), Stmts: []*syntax.Stmt{
		{Position: st.Position, Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{value}}},
		shast.CallStmt(st.Position, shast.LitWord(shast.CmdNamerefSet), shast.LitWord(as.Name.Value), shast.LitWord(indexText(as.Index))),
	}}
}

// indexText is the subscript x as the script wrote it, near enough to be
// parsed again.
func indexText(x syntax.ArithmExpr) string {
	var b strings.Builder
	syntax.NewPrinter(syntax.Minify(true)).Print(&b, &syntax.ArithmCmd{Left: x.Pos(), Right: x.End(), X: x})
	return strings.TrimSuffix(strings.TrimPrefix(b.String(), "(("), "))")
}

// NamerefAsWritten is the command the script wrote where the nameref
// rewrite made c; c itself for any other.
func NamerefAsWritten(c syntax.Command) syntax.Command {
	b, ok := c.(*syntax.Block)
	if !ok || len(b.Stmts) != 2 {
		return c
	}
	set, ok1 := b.Stmts[0].Cmd.(*syntax.CallExpr)
	call, ok2 := b.Stmts[1].Cmd.(*syntax.CallExpr)
	if !ok1 || !ok2 || len(set.Assigns) != 1 || len(call.Args) != 3 || call.Args[0].Lit() != shast.CmdNamerefSet {
		return c
	}
	return &syntax.CallExpr{Assigns: []*syntax.Assign{{
		Name: &syntax.Lit{Value: call.Args[1].Lit()}, Index: shast.LitWord(call.Args[2].Lit()), Value: set.Assigns[0].Value,
	}}}
}

// mvdan/sh's `declare -n r=b` of a name that is a name reference already
// assigns through the old reference: the variable r named becomes a
// reference to b, and r still names it. Bash points r at b. A
// declaration that makes references becomes the internal unset-ref
// command (shast.CmdUnsetRef), an `unset -n` of the names it assigns,
// then the declaration.

// refNames are the names d makes name references with a value: those
// after a -n flag, or of `declare -n`'s nameref variant.
func refNames(d *syntax.DeclClause) []string {
	ref := d.Variant.Value == "nameref"
	var names []string
	for _, as := range d.Args {
		if as.Name == nil {
			if lit := orEmpty(as.Value).Lit(); strings.HasPrefix(lit, "-") {
				if i := strings.LastIndexAny(lit, "aAn"); i > 0 {
					ref = lit[i] == 'n'
				}
			}
			continue
		}
		if ref && !as.Naked && as.Index == nil && as.Array == nil {
			names = append(names, as.Name.Value)
		}
	}
	return names
}

// unsetRefs is what st, a declaration that makes the references names,
// becomes.
func unsetRefs(st *syntax.Stmt, names []string) *syntax.Block {
	args := []*syntax.Word{shast.LitWord(shast.CmdUnsetRef)}
	for _, n := range names {
		args = append(args, shast.LitWord(n))
	}
	inner := *st
	inner.Negated, inner.Background, inner.Redirs, inner.Comments = false, false, nil, nil
	return &syntax.Block{Lbrace: st.Position, Rbrace: st.End(), Stmts: []*syntax.Stmt{shast.CallStmt(st.Position, args...), &inner}}
}
