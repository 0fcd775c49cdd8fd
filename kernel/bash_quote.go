package kernel

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// bashQuote quotes s as bash's printf %q does: ” when empty, $'...' when
// it holds a character that does not print, backslashes before the
// characters the shell would read otherwise.
func bashQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return ansicQuote(s)
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\'', '"', '\\', '|', '&', ';', '(', ')', '<', '>', '!', '{', '}', '*', '[', '?', ']', '^', '$', '`', ',':
			b.WriteByte('\\')
		case '~':
			if i == 0 || s[i-1] == '=' || s[i-1] == ':' {
				b.WriteByte('\\')
			}
		case '#':
			if i == 0 {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansicQuote is bash's $'...' quoting.
func ansicQuote(s string) string {
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
