package shast

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Quote is s as one word of bash source, for the source shelter evaluates
// itself: quoted as syntax.Quote does, or as $'...' when s is not valid
// UTF-8. A variable cannot hold NUL; Quote drops it, as bash does.
func Quote(s string) string {
	q, err := syntax.Quote(strings.ReplaceAll(s, "\x00", ""), syntax.LangBash)
	if err != nil {
		// Only invalid UTF-8 is left; $'...' with octal escapes holds it.
		return ANSICQuote(s)
	}
	return q
}

// ANSICQuote is bash's $'...' quoting of s.
func ANSICQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, "\\%03o", s[i])
		case r < utf8.RuneSelf && strings.ContainsRune("\a\b\x1b\f\n\r\t\v\\'", r):
			b.WriteByte('\\')
			b.WriteByte("abEfnrtv\\'"[strings.IndexRune("\a\b\x1b\f\n\r\t\v\\'", r)])
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+size])
		default:
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "\\%03o", c)
			}
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// ShellMeta reports whether s[i] is a byte bash quotes where it lists a
// value for the shell to read back (set's listing, printf %q): a blank, an
// operator, a quote, a glob or expansion character, a ~ that would expand
// (first, or after = or :) or a # that would start a comment (first).
func ShellMeta(s string, i int) bool {
	switch s[i] {
	case ' ', '\t', '\n', '\'', '"', '\\', '|', '&', ';', '(', ')', '<', '>', '!', '{', '}', '*', '[', '?', ']', '^', '$', '`':
		return true
	case '~':
		return i == 0 || s[i-1] == '=' || s[i-1] == ':'
	case '#':
		return i == 0
	}
	return false
}
