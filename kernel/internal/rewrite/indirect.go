package rewrite

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// IndirectPrefix starts the variables that hold, for one statement, the
// value an indirection `${!ref}` names: SHELTER_INDIRECT_ref.
// mvdan/sh looks the value of ref up as a variable's name only, so that
// `${!ref}` is empty when ref holds an element (`a[1]`, `m[$k]`, `a[@]`),
// and it drops the operator of `${!ref:-word}` and its kin. The statement
// that holds the indirection is run after the internal indirect command
// (shast.CmdIndirect), which sets the variable as `${TARGET}` would
// expand, or unsets it; the indirection becomes `${SHELTER_INDIRECT_ref…}`
// with every operator it had.
const IndirectPrefix = "SHELTER_INDIRECT_"

// KeysPrefix starts the indexed arrays that hold, for one statement, the
// keys of an associative array or of a name reference's array:
// SHELTER_KEYS_NAME. mvdan/sh expands "${!m[@]}" of an empty associative
// array to one empty word, and of a name reference to nothing; the
// statement reads "${SHELTER_KEYS_m[@]}" instead, which the internal
// indirect command sets.
const KeysPrefix = "SHELTER_KEYS_"

// IndirectStatusVar holds $? as it was before the internal indirect
// command, which the statement reads in its place.
const IndirectStatusVar = "SHELTER_IND_STATUS"

// indirections are the statements whose words hold an indirection,
// gathered during the walk: the stack of the nodes the walk is in finds
// the statement that holds each.
type indirections struct {
	stack  []syntax.Node
	owners []*syntax.Stmt
	refs   map[*syntax.Stmt][]*syntax.ParamExp // the indirections and the $? of each statement
}

// track notes n, a node the walk enters, or its end (nil).
func (in *indirections) track(n syntax.Node) {
	if n == nil {
		in.stack = in.stack[:len(in.stack)-1]
		return
	}
	in.stack = append(in.stack, n)
	pe, ok := n.(*syntax.ParamExp)
	if !ok || !indirection(pe) && !listRead(pe) && !(pe.Param != nil && pe.Param.Value == "?") {
		return
	}
	for i := len(in.stack) - 1; i >= 0; i-- {
		if st, ok := in.stack[i].(*syntax.Stmt); ok {
			if in.refs == nil {
				in.refs = make(map[*syntax.Stmt][]*syntax.ParamExp)
			}
			if (indirection(pe) || listRead(pe)) && !slices.ContainsFunc(in.refs[st], candidate) {
				in.owners = append(in.owners, st)
			}
			in.refs[st] = append(in.refs[st], pe)
			return
		}
	}
}

func candidate(pe *syntax.ParamExp) bool { return indirection(pe) || listRead(pe) }

// listRead reports whether pe reads a whole array, ${NAME[@]} or
// ${NAME[*]} with any operator, or its keys: what the copy of a name
// reference's array serves.
func listRead(pe *syntax.ParamExp) bool {
	if pe.Param == nil || pe.Length || pe.Names != 0 || !syntax.ValidName(pe.Param.Value) || assigns(pe.Exp) {
		return false
	}
	w, ok := pe.Index.(*syntax.Word)
	if !ok {
		return false
	}
	lit := w.Lit()
	return lit == "@" || lit == "*"
}

// indirection reports whether pe is `${!ref}`, with or without an
// operator but assignment, of a variable or a positional parameter (not
// of a special parameter: `${!#}` is mvdan/sh's).
func indirection(pe *syntax.ParamExp) bool {
	return pe.Excl && pe.Names == 0 && pe.Index == nil && pe.Param != nil &&
		(syntax.ValidName(pe.Param.Value) || positional(pe.Param.Value)) &&
		!pe.Length && !pe.Width && !assigns(pe.Exp)
}

// positional reports whether name is a positional parameter's, 1 and up.
func positional(name string) bool {
	return name != "" && name != "0" && strings.Trim(name, "0123456789") == ""
}

// assigns reports whether x is the operator of ${v=word} or ${v:=word},
// which assign to the target itself: those are left to mvdan/sh.
func assigns(x *syntax.Expansion) bool {
	return x != nil && (x.Op == syntax.AssignUnset || x.Op == syntax.AssignUnsetOrNull)
}

// finish puts the internal indirect command before each statement that
// holds an indirection, a read of the whole array of one of namerefs, or
// of the keys of one of namerefs or assoc (the names declared -A).
func (in *indirections) finish(namerefs, assoc map[string]bool) {
	for _, st := range in.owners {
		var refs []*syntax.Word
		seen := map[string]bool{}
		rename := func(pe *syntax.ParamExp, prefix, arg string) {
			if !seen[arg] {
				seen[arg] = true
				if positional(arg) {
					// The handler sees no positional parameters:
					// @N, then the value of N.
					refs = append(refs, shast.LitWord("@"+arg), &syntax.Word{Parts: []syntax.WordPart{
						&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.ParamExp{Param: &syntax.Lit{Value: arg}}}},
					}})
				} else {
					refs = append(refs, shast.LitWord(arg))
				}
			}
			pe.Short = false
			pe.Param = &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: prefix + pe.Param.Value}
		}
		var statuses []*syntax.ParamExp
		for _, pe := range in.refs[st] {
			switch {
			case indirection(pe):
				pe.Excl = false
				rename(pe, IndirectPrefix, pe.Param.Value)
			case listRead(pe) && pe.Excl && (namerefs[pe.Param.Value] || assoc[pe.Param.Value]):
				pe.Excl = false
				rename(pe, KeysPrefix, pe.Param.Value+"[!]")
			case listRead(pe) && namerefs[pe.Param.Value]:
				rename(pe, NamerefPrefix, pe.Param.Value+"[@]")
			case pe.Param.Value == "?" && !pe.Excl && pe.Index == nil:
				statuses = append(statuses, pe)
			}
		}
		if refs == nil {
			continue
		}
		for _, pe := range statuses {
			pe.Param = &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: IndirectStatusVar}
			pe.Short = false
		}
		args := append([]*syntax.Word{shast.LitWord(shast.CmdIndirect), shast.QuotedParam("?")}, refs...)
		inner := *st
		inner.Negated, inner.Background, inner.Redirs, inner.Comments = false, false, nil, nil
		st.Cmd = &syntax.Block{Lbrace: st.Position, Rbrace: st.End(), Stmts: []*syntax.Stmt{
			shast.CallStmt(st.Position, args...), &inner,
		}}
	}
}

// IndirectAsWritten is the command the script wrote where the
// indirection rewrite or the declaration of references (unsetRefs) made
// c: the command after the internal command they put first; c itself for
// any other.
func IndirectAsWritten(c syntax.Command) syntax.Command {
	b, ok := c.(*syntax.Block)
	if !ok || len(b.Stmts) != 2 {
		return c
	}
	call, ok := b.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != shast.CmdIndirect && call.Args[0].Lit() != shast.CmdUnsetRef {
		return c
	}
	return b.Stmts[1].Cmd
}

// IndirectText is text, printed from a rewritten script, as the script
// wrote it: `${SHELTER_INDIRECT_ref…}` is `${!ref…}`,
// `${SHELTER_NAMEREF_ref[@]…}` is `${ref[@]…}`, `${SHELTER_KEYS_m[@]}`
// is `${!m[@]}` and
// `${SHELTER_IND_STATUS}` is `$?`.
func IndirectText(text string) string {
	if !strings.Contains(text, "SHELTER_") {
		return text
	}
	text = strings.ReplaceAll(text, "${"+IndirectStatusVar+"}", "$?")
	text = strings.ReplaceAll(text, NamerefPrefix, "")
	text = strings.ReplaceAll(text, "${"+KeysPrefix, "${!")
	return strings.ReplaceAll(text, "${"+IndirectPrefix, "${!")
}
