package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The tilde prefixes mvdan/sh does not expand as bash does
// (docs/mvdan.md, "Tilde prefixes"): ~+ and ~- (the working directory,
// the previous one), a ~ after a colon in an assignment's value
// (PATH=~/bin:~/lib), and the ~ of a default inside double quotes
// ("${v:-~/x}"), which bash leaves as it is. A prefix becomes the
// variable it stands for, double-quoted; ~+ and ~- stay as written when
// PWD or OLDPWD is unset, as in bash (which takes the home directory from
// the system when HOME is unset: shelter leaves ~ as written, as mvdan/sh
// does for the ~ it expands itself).

// tildeNames are the tilde prefixes rewritten, with the variable each
// stands for.
var tildeNames = map[string]string{"~": "HOME", "~+": "PWD", "~-": "OLDPWD"}

// rewriteTildes rewrites the tilde prefixes of n's words.
func rewriteTildes(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.CallExpr:
		for _, w := range n.Args {
			dirPrefix(w)
		}
	case *syntax.WordIter:
		for _, w := range n.Items {
			dirPrefix(w)
		}
	case *syntax.Assign:
		if !n.Naked && n.Value != nil {
			dirPrefix(n.Value)
			afterColons(n.Value)
		}
		if n.Array != nil {
			for _, el := range n.Array.Elems {
				if el.Value != nil {
					dirPrefix(el.Value)
				}
			}
		}
	case *syntax.DblQuoted:
		for _, part := range n.Parts {
			if pe, ok := part.(*syntax.ParamExp); ok && pe.Exp != nil && pe.Exp.Word != nil {
				quoteLeadingTilde(pe.Exp.Word)
			}
		}
	}
}

// tildeRewritable reports whether rewriteTildes may change n.
func tildeRewritable(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.CallExpr:
		for _, w := range n.Args {
			if _, _, ok := leadingPrefix(w); ok {
				return true
			}
		}
	case *syntax.WordIter:
		for _, w := range n.Items {
			if _, _, ok := leadingPrefix(w); ok {
				return true
			}
		}
	case *syntax.Assign:
		if n.Array != nil {
			for _, el := range n.Array.Elems {
				if el.Value != nil {
					if _, _, ok := leadingPrefix(el.Value); ok {
						return true
					}
				}
			}
		}
		if n.Naked || n.Value == nil {
			return false
		}
		if _, _, ok := leadingPrefix(n.Value); ok {
			return true
		}
		for _, part := range n.Value.Parts {
			if lit, ok := part.(*syntax.Lit); ok && strings.Contains(lit.Value, ":~") {
				return true
			}
		}
	case *syntax.ParamExp:
		// In double quotes, which the walk finds above it.
		return n.Exp != nil && n.Exp.Word != nil && leadingTilde(n.Exp.Word)
	}
	return false
}

// leadingPrefix is w's first part and the tilde prefix it begins with,
// when mvdan/sh does not expand that one: ~+ or ~- that a slash, a colon
// or the word's end ends, or ~ that a colon ends (~:x, which bash expands
// in any word).
func leadingPrefix(w *syntax.Word) (*syntax.Lit, string, bool) {
	if len(w.Parts) == 0 {
		return nil, "", false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || !strings.HasPrefix(lit.Value, "~") {
		return nil, "", false
	}
	if strings.HasPrefix(lit.Value, "~:") {
		return lit, "~", true
	}
	if len(lit.Value) < 2 || lit.Value[1] != '+' && lit.Value[1] != '-' {
		return nil, "", false
	}
	rest := lit.Value[2:]
	return lit, lit.Value[:2], rest == "" && len(w.Parts) == 1 || strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, ":")
}

// dirPrefix rewrites w's leading tilde prefix that mvdan/sh leaves.
func dirPrefix(w *syntax.Word) {
	lit, prefix, ok := leadingPrefix(w)
	if !ok {
		return
	}
	parts := []syntax.WordPart{tildeValue(lit, prefix)}
	if rest := lit.Value[len(prefix):]; rest != "" {
		parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: rest})
	}
	w.Parts = append(parts, w.Parts[1:]...)
}

// afterColons rewrites the tilde prefixes that follow a colon in an
// assignment's value: each ~, ~+ or ~- that a slash, a colon or the
// value's end ends.
func afterColons(w *syntax.Word) {
	var parts []syntax.WordPart
	changed := false
	for i, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok || !strings.Contains(lit.Value, ":~") {
			parts = append(parts, part)
			continue
		}
		last := i == len(w.Parts)-1
		s := lit.Value
		for {
			j := strings.Index(s, ":~")
			if j < 0 {
				break
			}
			prefix := tildePrefixAt(s[j+1:], last)
			if prefix == "" {
				parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s[:j+2]})
				s = s[j+2:]
				continue
			}
			parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s[:j+1]}, tildeValue(lit, prefix))
			s = s[j+1+len(prefix):]
			changed = true
		}
		if s != "" {
			parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s})
		}
	}
	if changed {
		w.Parts = parts
	}
}

// tildePrefixAt is the tilde prefix s begins with (~, ~+ or ~-) when a
// slash or a colon ends it, or the end of s where s ends the value; ""
// for none.
func tildePrefixAt(s string, endsValue bool) string {
	for _, p := range []string{"~+", "~-", "~"} {
		if rest, ok := strings.CutPrefix(s, p); ok && (rest == "" && endsValue || strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, ":")) {
			return p
		}
	}
	return ""
}

// tildeValue is the double-quoted variable that the tilde prefix stands
// for, the prefix itself when the variable is unset: "${HOME-~}",
// "${PWD-~+}", "${OLDPWD-~-}" (mvdan/sh's own ~ stays as written without
// HOME too).
func tildeValue(at *syntax.Lit, prefix string) syntax.WordPart {
	pe := &syntax.ParamExp{Dollar: at.ValuePos, Param: &syntax.Lit{ValuePos: at.ValuePos, ValueEnd: at.ValuePos, Value: tildeNames[prefix]},
		Exp: &syntax.Expansion{Op: syntax.DefaultUnset, Word: &syntax.Word{Parts: []syntax.WordPart{
			&syntax.SglQuoted{Left: at.ValuePos, Right: at.ValuePos, Value: prefix}}}}}
	return &syntax.DblQuoted{Left: at.ValuePos, Right: at.ValuePos, Parts: []syntax.WordPart{pe}}
}

func leadingTilde(w *syntax.Word) bool {
	if len(w.Parts) == 0 {
		return false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	return ok && strings.HasPrefix(lit.Value, "~")
}

// quoteLeadingTilde single-quotes the ~ a default's word begins with,
// which mvdan/sh takes out of the quotes when it expands the word.
func quoteLeadingTilde(w *syntax.Word) {
	if !leadingTilde(w) {
		return
	}
	lit := w.Parts[0].(*syntax.Lit)
	parts := []syntax.WordPart{&syntax.SglQuoted{Left: lit.ValuePos, Right: lit.ValuePos, Value: "~"}}
	if rest := lit.Value[1:]; rest != "" {
		parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: rest})
	}
	w.Parts = append(parts, w.Parts[1:]...)
}
