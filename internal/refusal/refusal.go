// Package refusal words every refusal shelter makes in one voice: the
// command first, then what was wrong with the offending word in '…'
// quotes, then "allowed:" and the pool of what is allowed instead,
// sorted, or "(none)":
//
//	git log: unknown flag '--output'; allowed: -n/--max-count, --oneline
//
// A refusal is one line whatever the caller gave it: [Show] escapes
// control characters and cuts long words, so a hostile argument cannot
// add a line or flood a model's context.
package refusal

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line renders a refusal: "command: what; allowed: pool". what says what
// was wrong and quotes the offending word with [Quote]; allowed is the
// pool, rendered by [Pool].
func Line(command, what string, allowed []string) string {
	return command + ": " + what + "; allowed: " + Pool(allowed)
}

// Pool renders the names a refusal allows: sorted, without repeats,
// joined by ", ", or "(none)" when there are none. Flags sort by their
// name, leading dashes aside, so that "-n/--max-count" comes between
// "--all" and "--oneline".
func Pool(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	sorted := slices.Clone(names)
	slices.SortFunc(sorted, func(a, b string) int {
		if c := strings.Compare(strings.TrimLeft(a, "-"), strings.TrimLeft(b, "-")); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return strings.Join(slices.Compact(sorted), ", ")
}

// Quote is [Show] in single quotes: how a refusal names the word it
// refuses.
func Quote(s string) string { return "'" + Show(s) + "'" }

// maxRunes is where [Show] cuts a word.
const maxRunes = 80

// Show renders a word given by a caller for a refusal line: control and
// other unprintable characters and invalid UTF-8 escaped as in a Go
// string, and cut after
// 80 characters with "…". The caller's error fields keep the word whole.
func Show(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) >= 0 {
		q := strconv.Quote(s)
		s = q[1 : len(q)-1]
	}
	n := 0
	for i := range s {
		if n == maxRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
