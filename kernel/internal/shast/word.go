package shast

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Word is one word of a command as the static pass sees it.
type Word struct {
	// Text is the word's value when it is literal.
	Text string
	// Opaque is true when the value is only known at execution: an
	// expansion, a command substitution, a glob.
	Opaque bool
}

// StaticWord evaluates a word without running anything: quotes and
// escapes are resolved; expansions, substitutions, globs, braces and
// tildes make it opaque.
func StaticWord(w *syntax.Word) Word {
	if len(w.Parts) == 1 {
		// The common word, one plain literal, is its own text.
		if p, ok := w.Parts[0].(*syntax.Lit); ok && plainLit(p.Value) {
			return Word{Text: p.Value}
		}
	}
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if hasGlobByte(p.Value) || i == 0 && strings.HasPrefix(p.Value, "~") {
				return Word{Opaque: true}
			}
			b.WriteString(unescapeLit(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return Word{Opaque: true}
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return Word{Opaque: true}
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return Word{Opaque: true}
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return Word{Opaque: true}
		}
	}
	return Word{Text: b.String()}
}

// LiteralText is w's text when it has no expansion: quotes and escapes
// resolved. Unlike [StaticWord] it takes glob characters as they are, for
// places that do not glob.
func LiteralText(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 1 {
		// Most words: one part whose text is the word's, kept without a copy.
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') < 0 {
				return p.Value, true
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return p.Value, true
			}
		}
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeLit(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// plainLit reports whether a literal has none of the bytes that make a
// word more than its text: globs, braces, a tilde, a backslash.
func plainLit(lit string) bool { return skip(lit, 0, &litPlain) == len(lit) }

// hasGlobByte reports whether a literal holds a glob or a brace.
func hasGlobByte(lit string) bool { return skip(lit, 0, &notGlob) < len(lit) }

var (
	litPlain = byteSetNot("*?[{~\\")
	notGlob  = byteSetNot("*?[{")
)

func unescapeLit(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
