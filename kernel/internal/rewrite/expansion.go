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
