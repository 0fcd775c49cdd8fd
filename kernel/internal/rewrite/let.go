package rewrite

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// runtimeLetArg reports whether x, an argument of a let clause, is known
// only at run time: a word with an expansion in it (`"a = $x * 2"`,
// `$expr`), which mvdan/sh would read, expanded, as a number, where bash
// reads an expression.
func runtimeLetArg(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) == 1 && isLit(w.Parts[0]) {
		return false
	}
	_, static := shast.LiteralText(w)
	return !static
}

func isLit(p syntax.WordPart) bool {
	_, ok := p.(*syntax.Lit)
	return ok
}

// rewriteLetCall makes a let clause with an argument known only at run
// time a plain call of let, answered by the call handler (bashcompat's
// letCall), which parses each expanded argument as bash does. Its other
// arguments, which mvdan/sh parsed, become their text, single-quoted.
func rewriteLetCall(st *syntax.Stmt) {
	lc, ok := st.Cmd.(*syntax.LetClause)
	if !ok || !slices.ContainsFunc(lc.Exprs, runtimeLetArg) {
		return
	}
	words := []*syntax.Word{shast.LitWord("let")}
	for _, x := range lc.Exprs {
		if w, ok := x.(*syntax.Word); ok && runtimeLetArg(w) {
			words = append(words, w)
			continue
		}
		words = append(words, &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Left: x.Pos(), Right: x.End(), Value: arithmText(x)}}})
	}
	st.Cmd = &syntax.CallExpr{Args: words}
}

// arithmText is x printed on one line.
func arithmText(x syntax.ArithmExpr) string {
	var b strings.Builder
	syntax.NewPrinter(syntax.Minify(true)).Print(&b, &syntax.ArithmExp{X: x})
	s := strings.TrimSuffix(strings.TrimPrefix(b.String(), "$(("), "))")
	return strings.TrimSpace(strings.ReplaceAll(s, "\\\n", ""))
}
