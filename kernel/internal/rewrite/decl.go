package rewrite

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// declQueryFlags are the flags, by clause, whose clauses the call handler
// answers.
var declQueryFlags = map[string][]string{
	"declare":  {"-F", "-f", "-p", "+x"},
	"typeset":  {"-F", "-f", "-p", "+x"},
	"export":   {"-p", "-n"},
	"readonly": {"-p"},
}

// rewriteDeclQuery turns st's declaration clause into a call when the
// call handler answers it (see declQueryFlags).
func rewriteDeclQuery(st *syntax.Stmt) {
	dc, ok := st.Cmd.(*syntax.DeclClause)
	if !ok {
		return
	}
	allowed := declQueryFlags[dc.Variant.Value]
	if allowed == nil {
		return
	}
	words := []*syntax.Word{shast.LitWord(dc.Variant.Value)}
	flags := 0
	for _, as := range dc.Args {
		if !as.Naked || as.Array != nil || as.Index != nil {
			return
		}
		w := as.Value
		if w == nil {
			w = shast.LitWord(as.Name.Value)
		}
		if lit := w.Lit(); len(lit) > 1 && (lit[0] == '-' || lit[0] == '+') {
			if !slices.Contains(allowed, lit) {
				return
			}
			flags++
		} else if lit == "" && flags == 0 {
			// A computed word that may be a flag or an assignment.
			return
		}
		words = append(words, w)
	}
	if flags == 0 && (dc.Variant.Value == "declare" || dc.Variant.Value == "typeset" || len(words) > 1) {
		return
	}
	st.Cmd = &syntax.CallExpr{Args: words}
}
