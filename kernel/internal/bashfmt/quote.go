package bashfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// quote quotes s as bash's printf %q does: ” when empty, $'...' when
// it holds a character that does not print, backslashes before the
// characters the shell would read otherwise.
func quote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return shast.ANSICQuote(s)
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if shast.ShellMeta(s, i) || s[i] == ',' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
