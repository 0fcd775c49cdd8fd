package rewrite

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// runtimeLetArg reports whether x, an argument of a let clause, is a word
// mvdan/sh would read, expanded, as a number, where bash reads an
// expression: one with an expansion in it (`"a = $x * 2"`, `$expr`), or
// a quoted one the rewrite could not parse (`'a[1]=5'`).
func runtimeLetArg(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && !(len(w.Parts) == 1 && isLit(w.Parts[0]))
}

func isLit(p syntax.WordPart) bool {
	_, ok := p.(*syntax.Lit)
	return ok
}

// rewriteLetCall makes a let clause a plain call of let, answered by the
// call handler (bashcompat's letCall), when mvdan/sh's let would differ
// from bash's: an argument known only at run time, which letCall parses
// expanded, as bash does; a constant bash rejects; a write to an array
// element. Its other arguments, which mvdan/sh parsed, become their
// text, single-quoted.
func rewriteLetCall(st *syntax.Stmt) {
	lc, ok := st.Cmd.(*syntax.LetClause)
	if !ok {
		return
	}
	// A quoted argument is parsed now (guardArithmNode), where it can.
	for i, x := range lc.Exprs {
		if w, ok := x.(*syntax.Word); ok {
			if parsed, ok := quotedArithm(w); ok {
				lc.Exprs[i] = parsed
			}
		}
	}
	if !slices.ContainsFunc(lc.Exprs, runtimeLetArg) && !slices.ContainsFunc(lc.Exprs, letGuarded) {
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

// BadConstant reports the message bash fails a constant of an arithmetic
// expression with (`08`, `2#3`); ok is false for a word that is no
// constant, or a good one.
func BadConstant(w *syntax.Word) (msg string, ok bool) { return badConstant(w) }

// letGuarded reports whether x, an argument of a let clause, holds what
// mvdan/sh's let gets wrong: a constant bash rejects, or a write to an
// array element.
func letGuarded(x syntax.ArithmExpr) bool {
	found := false
	shast.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			_, found = badConstant(n)
		case *syntax.BinaryArithm:
			_, assign := shast.ArithAssignOp(n.Op)
			found = assign && !shast.PlainName(n.X)
		case *syntax.UnaryArithm:
			found = (n.Op == syntax.Inc || n.Op == syntax.Dec) && !shast.PlainName(n.X)
		}
		return !found
	})
	return found
}
