package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// GlobMarker begins an argument of shast.CmdGlobCall that is a pattern
// to expand: the rest of the argument. No script can type it.
const GlobMarker = shast.InternalPrefix + "glob:"

// FailGlob rewrites the commands of file whose arguments hold a literal
// pattern, for shopt -s failglob, which mvdan/sh does not have
// (docs/mvdan.md, "Failglob"): `cmd *.x` becomes `CmdGlobCall cmd
// GLOBMARKER*.x`, and shelter expands the marked patterns as bash does
// (with failglob, a pattern that names no file ends the shell with
// status 1, as in a non-interactive bash). A for loop's literal patterns
// are expanded by a prelude of shast.CmdExtglob, as extglob words are. The kernel applies it only to a
// script that may run with the option on (one naming it, or run while it
// is on).
func FailGlob(file *syntax.File) {
	next := 0
	shast.Walk(file, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok {
			failGlobLoop(st, &next)
			return true
		}
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) < 2 {
			return true
		}
		marked := false
		for i, w := range call.Args[1:] {
			if pat, ok := globWord(w); ok {
				call.Args[i+1] = sglWord(GlobMarker + pat)
				marked = true
			}
		}
		if marked {
			call.Args = append([]*syntax.Word{shast.LitWord(shast.CmdGlobCall)}, call.Args...)
		}
		return true
	})
}

// SetsFailGlob reports whether the command of the words args names the
// failglob option.
func SetsFailGlob(args []shast.Word) bool {
	if len(args) < 2 || args[0].Text != "shopt" {
		return false
	}
	for _, w := range args[1:] {
		if w.Text == "failglob" {
			return true
		}
	}
	return false
}

// globWord is the pattern of w when w is all literal and a pattern (but
// for **, which globstar governs, and braces, which brace expansion takes
// first).
func globWord(w *syntax.Word) (string, bool) {
	pat, ok := extglobWord(w)
	if ok {
		return pat, !strings.Contains(pat, "**")
	}
	if len(w.Parts) != 1 {
		return "", false
	}
	lit, isLit := w.Parts[0].(*syntax.Lit)
	if !isLit || strings.HasPrefix(lit.Value, "~") || strings.ContainsAny(lit.Value, "{") || strings.Contains(lit.Value, "**") || !unescapedMeta(lit.Value) {
		return "", false
	}
	return lit.Value, true
}

// unescapedMeta reports whether s holds a *, ? or [ that no backslash
// quotes.
func unescapedMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// failGlobLoop gives the literal patterns of st's for loop list a
// prelude that expands them.
func failGlobLoop(st *syntax.Stmt, next *int) {
	f, ok := st.Cmd.(*syntax.ForClause)
	if !ok {
		return
	}
	it, ok := f.Loop.(*syntax.WordIter)
	if !ok {
		return
	}
	p := prelude{st: st, cmd: shast.CmdExtglob, next: next}
	for i, w := range it.Items {
		if pat, ok := globWord(w); ok {
			it.Items[i] = quotedArray(p.add(shast.LitWord("glob"), sglWord(pat)))
		}
	}
	p.finish()
}
