package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// decodeANSIC turns a $'…' string that holds \x{…} or \cX, which mvdan/sh
// leaves as written (docs/mvdan.md, "ANSI-C escapes"), into the
// single-quoted string of its value as bash decodes it.
func decodeANSIC(sq *syntax.SglQuoted) {
	if ansiCRewritable(sq) {
		sq.Value, sq.Dollar = shast.DecodeANSIC(sq.Value), false
	}
}

// ansiCRewritable reports whether decodeANSIC changes sq.
func ansiCRewritable(sq *syntax.SglQuoted) bool {
	return sq.Dollar && (strings.Contains(sq.Value, `\x{`) || strings.Contains(sq.Value, `\c`))
}
