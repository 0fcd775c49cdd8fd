package bashcompat

import (
	"context"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// setListing is set alone, as bash prints it: each variable with a value,
// sorted, as NAME=VALUE that reads back as the same value (setQuote; an
// array as declare -p shows it), then each function as declare -f prints
// it. mvdan/sh's set alone prints nothing.
func setListing(ctx context.Context, sh Shell, hc interp.HandlerContext) []string {
	var b strings.Builder
	for _, n := range visibleVars(hc.Env) {
		vr := hc.Env.Get(n)
		switch {
		case vr.Kind == expand.Indexed && len(vr.List) > 0:
			b.WriteString(n + "=" + arrayText(vr) + "\n")
		case vr.Kind == expand.Associative && len(vr.Map) > 0:
			b.WriteString(n + "=" + assocText(vr) + "\n")
		case (vr.Kind == expand.String || vr.Kind == expand.NameRef) && vr.IsSet():
			b.WriteString(n + "=" + setQuote(vr.Str) + "\n")
		}
	}
	funcs := sh.Funcs(hc)
	for _, n := range slices.Sorted(maps.Keys(funcs)) {
		b.WriteString(funcText(n, funcs[n], false) + "\n")
	}
	return wrote(ctx, sh, hc, "set", b.String(), 0)
}

// setQuote is a value as set prints it: $'...' when it holds a byte that
// does not print or is not UTF-8, in single quotes when it holds a
// character the shell would take for syntax (shast.ShellMeta), else as it
// is.
func setQuote(s string) string {
	for i := range len(s) {
		if s[i] < 0x20 || s[i] == 0x7f {
			return shast.ANSICQuote(s)
		}
	}
	if !utf8.ValidString(s) {
		return shast.ANSICQuote(s)
	}
	for i := range len(s) {
		if shast.ShellMeta(s, i) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
