package shast

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// DoubleQuotable reports whether w, an assignment's value, means the same
// as the parts of a double-quoted word: no backslash in a literal part,
// no leading tilde, no $'…', nothing but literals, quotes and
// expansions. A nil value is the empty one.
func DoubleQuotable(w *syntax.Word) bool {
	if w == nil {
		return true
	}
	for i, part := range w.Parts {
		switch part := part.(type) {
		case *syntax.Lit:
			if strings.ContainsRune(part.Value, '\\') || i == 0 && strings.HasPrefix(part.Value, "~") {
				return false
			}
		case *syntax.SglQuoted:
			if part.Dollar {
				return false
			}
		case *syntax.DblQuoted, *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
		default:
			return false
		}
	}
	return true
}

// ReadsAny reports whether w expands a parameter of one of names.
func ReadsAny(w *syntax.Word, names []string) bool {
	found := false
	Walk(w, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && slices.Contains(names, p.Param.Value) {
			found = true
		}
		return !found
	})
	return found
}

// DeclOrderRewritable reports whether the rewrites take dc, a clause
// whose value reads a name an earlier operand assigns (`local a=1
// b=$a`), to a call whose words are all expanded first, as bash's are:
// each operand is a literal flag, a name, or an assignment of a value
// DoubleQuotable, no array. mvdan/sh would assign each operand before it
// expands the next.
func DeclOrderRewritable(dc *syntax.DeclClause) bool {
	var names []string
	reads := false
	for _, as := range dc.Args {
		if as.Name == nil {
			if lit := as.Value.Lit(); len(lit) < 2 || lit[0] != '-' && lit[0] != '+' {
				return false
			}
			continue
		}
		if as.Index != nil || as.Array != nil || !DoubleQuotable(as.Value) {
			return false
		}
		if as.Value != nil && ReadsAny(as.Value, names) {
			reads = true
		}
		if !as.Naked {
			names = append(names, as.Name.Value)
		}
	}
	return reads
}
