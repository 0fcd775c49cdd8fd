package rewrite

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// runtimeLetArg reports whether x, an argument of a let clause, holds a
// word mvdan/sh would read, expanded, as a number, where bash reads the
// text as part of the expression: an expansion (`"a = $x * 2"`, `$expr`,
// `a=$x+1` with x='2*3', `v="3 + 4"`), or a quoted word the rewrite could
// not parse (`'a[1]=5'`).
func runtimeLetArg(x syntax.ArithmExpr) bool {
	if w, ok := x.(*syntax.Word); ok {
		return !(len(w.Parts) == 1 && isLit(w.Parts[0]))
	}
	found := false
	shast.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			for _, p := range w.Parts {
				if pe, ok := p.(*syntax.ParamExp); !isLit(p) && (!ok || pe.Dollar.IsValid()) {
					found = true
				}
			}
		}
		return !found
	})
	return found
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
		switch w, isWord := x.(*syntax.Word); {
		case isWord && runtimeLetArg(w):
			words = append(words, w)
		case runtimeLetArg(x):
			words = append(words, &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Left: x.Pos(), Right: x.End(), Parts: letArgParts(x, nil)}}})
		default:
			words = append(words, &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Left: x.Pos(), Right: x.End(), Value: arithmText(x)}}})
		}
	}
	st.Cmd = &syntax.CallExpr{Args: words}
}

// letArgParts appends x as the parts of a double-quoted word whose
// expansion is the expression's text with its expansions done, as bash
// hands it to let: operators and names literal, `$x` and `$(…)` kept,
// the parts of a quoted word taken out of their quotes.
func letArgParts(x syntax.ArithmExpr, parts []syntax.WordPart) []syntax.WordPart {
	lit := func(s string) { parts = append(parts, &syntax.Lit{Value: s}) }
	switch x := x.(type) {
	case *syntax.Word:
		for _, p := range x.Parts {
			switch p := p.(type) {
			case *syntax.ParamExp:
				if p.Dollar.IsValid() || p.Param == nil {
					parts = append(parts, p)
					continue
				}
				lit(p.Param.Value) // a name in the expression: a[i]
				if p.Index != nil {
					lit("[")
					parts = letArgParts(p.Index, parts)
					lit("]")
				}
			case *syntax.DblQuoted:
				parts = append(parts, p.Parts...)
			case *syntax.SglQuoted:
				lit(p.Value)
			default:
				parts = append(parts, p)
			}
		}
	case *syntax.BinaryArithm:
		parts = letArgParts(x.X, parts)
		lit(" " + x.Op.String() + " ")
		parts = letArgParts(x.Y, parts)
	case *syntax.UnaryArithm:
		if x.Post {
			parts = letArgParts(x.X, parts)
			lit(x.Op.String())
		} else {
			lit(x.Op.String())
			parts = letArgParts(x.X, parts)
		}
	case *syntax.ParenArithm:
		lit("(")
		parts = letArgParts(x.X, parts)
		lit(")")
	}
	return parts
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
