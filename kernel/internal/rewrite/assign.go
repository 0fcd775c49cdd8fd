package rewrite

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// unescapeAssignValue removes the backslashes that quote characters in the
// value of an assignment (`x=a\ b`, `declare x=\$y`, `local d=My\ Dir`), as
// bash does: mvdan/sh keeps them, and the value holds `a\ b`. Each escaped
// character becomes a single-quoted one; an unescaped run stays a literal,
// so that a leading `~` still expands. A tilde prefix with an escaped
// character in it is not expanded by bash; it becomes one single-quoted
// part.
func unescapeAssignValue(as *syntax.Assign) {
	w := as.Value
	if w == nil || as.Naked {
		return
	}
	var parts []syntax.WordPart
	for i, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok || !strings.Contains(lit.Value, `\`) {
			if parts != nil {
				parts = append(parts, part)
			}
			continue
		}
		if parts == nil {
			parts = append(make([]syntax.WordPart, 0, len(w.Parts)+4), w.Parts[:i]...)
		}
		s := lit.Value
		if i == 0 && strings.HasPrefix(s, "~") {
			prefix, _, _ := strings.Cut(s, "/")
			if strings.Contains(prefix, `\`) {
				parts = append(parts, &syntax.SglQuoted{Left: lit.ValuePos, Value: dropEscapes(prefix)})
				s = s[len(prefix):]
			}
		}
		parts = appendEscaped(parts, lit, s)
	}
	if parts != nil {
		w.Parts = parts
	}
}

// appendEscaped appends s, a piece of lit, as literal runs and one
// single-quoted part for each character a backslash quotes. A backslash
// that ends s quotes nothing and stays.
func appendEscaped(parts []syntax.WordPart, lit *syntax.Lit, s string) []syntax.WordPart {
	for s != "" {
		i := strings.IndexByte(s, '\\')
		if i < 0 || i == len(s)-1 {
			return append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s})
		}
		if i > 0 {
			parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: s[:i]})
		}
		_, n := utf8.DecodeRuneInString(s[i+1:])
		parts = append(parts, &syntax.SglQuoted{Left: lit.ValuePos, Value: s[i+1 : i+1+n]})
		s = s[i+1+n:]
	}
	return parts
}

// dropEscapes removes the backslash before each character it quotes.
func dropEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
