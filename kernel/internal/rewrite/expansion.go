package rewrite

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// rewriteExpansion turns a `$(< FILE)` into a command substitution
// that runs shelter's own reader with FILE as its input: mvdan/sh glues
// the path to the content when FILE has several parts, and its copy knows
// neither the call's deadline nor its memory budget. It renames
// $DIRSTACK to the array shelter's pushd and popd keep (shast.DirStackVar).
func rewriteExpansion(n syntax.Node) {
	if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == "DIRSTACK" {
		pe.Param = &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: shast.DirStackVar}
		return
	}
	cs, ok := n.(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return
	}
	st := cs.Stmts[0]
	if st.Cmd != nil || st.Negated || st.Background || len(st.Redirs) != 1 || st.Redirs[0].Op != syntax.RdrIn {
		return
	}
	st.Cmd = &syntax.CallExpr{Args: []*syntax.Word{shast.LitWord(shast.CmdCat)}}
}

// rewriteOptionVars turns each plain $SHELLOPTS and $BASHOPTS of parts
// into $(CmdOptions NAME): mvdan/sh sets neither (docs/mvdan.md, "Option
// variables"), and shelter knows the options only as a command runs.
func rewriteOptionVars(parts []syntax.WordPart) {
	for i, part := range parts {
		if pe, ok := part.(*syntax.ParamExp); ok && isOptionVar(pe) {
			name := pe.Param.Value
			parts[i] = &syntax.CmdSubst{Left: pe.Pos(), Right: pe.End(), Stmts: []*syntax.Stmt{
				shast.CallStmt(pe.Pos(), shast.LitWord(shast.CmdOptions), shast.LitWord(name))}}
		}
	}
}

// isOptionVar reports whether pe is $SHELLOPTS or $BASHOPTS as it is.
func isOptionVar(pe *syntax.ParamExp) bool {
	return pe.Param != nil && (pe.Param.Value == "SHELLOPTS" || pe.Param.Value == "BASHOPTS") &&
		pe.Exp == nil && pe.Repl == nil && pe.Index == nil && pe.Slice == nil && !pe.Excl && !pe.Length && !pe.Width && pe.NestedParam == nil
}
