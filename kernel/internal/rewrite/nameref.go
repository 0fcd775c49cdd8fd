package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// mvdan/sh writes `ref[k]=v`, ref a name reference, as if the target
// were empty: `declare -n r=x; r[0]=9` leaves x with the one element 9,
// and makes an associative target indexed. For a name the script
// declares -n, such a statement becomes the internal nameref-set command
// (shast.CmdNamerefSet), which assigns the value to the element of the
// array the reference names.
//
// mvdan/sh expands "${ref[@]}" and "${!ref[@]}" of a name reference as
// one word, or nothing: a statement that holds one, for a name the script
// declares -n, runs after the internal indirect command, which copies the
// array the reference names to NamerefPrefix+ref (indirections).

// NamerefPrefix starts the copies of the arrays name references name:
// SHELTER_NAMEREF_ref.
const NamerefPrefix = "SHELTER_NAMEREF_"

// elementAssign is c's assignment when c assigns one element and nothing
// else: `NAME[k]=v`, with a value that does not start with ~.
func elementAssign(c *syntax.CallExpr) *syntax.Assign {
	if len(c.Args) != 0 || len(c.Assigns) != 1 {
		return nil
	}
	as := c.Assigns[0]
	if as.Name == nil || as.Index == nil || as.Array != nil || as.Append || as.Naked {
		return nil
	}
	if as.Value != nil && len(as.Value.Parts) > 0 {
		if lit, ok := as.Value.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
			return nil
		}
	}
	return as
}

// namerefElementWrite is what st, the assignment as to an element of a
// name reference, becomes: the internal nameref-set command, whose last
// word is the value in double quotes, where it expands as in the
// assignment (but for a leading ~, which elementAssign leaves out).
func namerefElementWrite(st *syntax.Stmt, as *syntax.Assign) *syntax.CallExpr {
	var parts []syntax.WordPart
	if as.Value != nil {
		parts = as.Value.Parts
	}
	value := &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Left: as.Pos(), Right: as.End(), Parts: parts}}}
	return &syntax.CallExpr{Args: []*syntax.Word{
		shast.LitWord(shast.CmdNamerefSet), shast.LitWord(as.Name.Value), shast.LitWord(indexText(as.Index)), value,
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
	call, ok := c.(*syntax.CallExpr)
	if !ok || len(call.Args) != 4 || call.Args[0].Lit() != shast.CmdNamerefSet || len(call.Args[3].Parts) != 1 {
		return c
	}
	value, ok := call.Args[3].Parts[0].(*syntax.DblQuoted)
	if !ok {
		return c
	}
	return &syntax.CallExpr{Assigns: []*syntax.Assign{{
		Name: &syntax.Lit{Value: call.Args[1].Lit()}, Index: shast.LitWord(call.Args[2].Lit()),
		Value: &syntax.Word{Parts: value.Parts},
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
