package static

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

func (c *GapCheck) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.DplOut:
		if r.N != nil && r.N.Value == "2" && r.Word.Lit() == "1" {
			c.facts.stderrToStdout = true
		}
	case syntax.WordHdoc:
		c.hereArith(r.Pos(), r.Word)
	case syntax.Hdoc, syntax.DashHdoc:
		c.hereArith(r.Pos(), r.Hdoc)
		quoted, plain := false, false
		for _, part := range r.Word.Parts {
			switch part.(type) {
			case *syntax.Lit:
				plain = true
			default:
				quoted = true
			}
		}
		if quoted && plain {
			c.note(r.Pos(), &gapHeredocQuoted)
		}
	}
}

// unquotedSplit notes words that field splitting cuts; IFS holds other
// than blanks.
func (c *GapCheck) unquotedSplit(words []*syntax.Word, pos syntax.Pos) {
	for _, w := range words {
		for _, part := range w.Parts {
			switch part.(type) {
			case *syntax.ParamExp, *syntax.CmdSubst:
				c.note(pos, &gapIFSEmptyFields)
				return
			}
		}
	}
}

// extglobSameLine notes an extglob group on the line of the shopt -s
// extglob that turns it on.
func (c *GapCheck) extglobSameLine(words []*syntax.Word) {
	if c.extglobLine == 0 {
		return
	}
	for _, w := range words {
		for _, part := range w.Parts {
			if eg, ok := part.(*syntax.ExtGlob); ok && eg.Pos().Line() == c.extglobLine {
				c.note(eg.Pos(), &gapExtglobSameLine)
			}
		}
	}
}

// hasExtGroup reports whether pat holds ?( *( +( @( or !(.
func hasExtGroup(pat string) bool {
	for i := 0; i+1 < len(pat); i++ {
		if pat[i+1] == '(' && strings.IndexByte("?*+@!", pat[i]) >= 0 {
			return true
		}
	}
	return false
}

func hasExpansion(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
			return true
		}
	}
	return false
}

func hasPart[T syntax.WordPart](w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(T); ok {
			return true
		}
	}
	return false
}

// allIndex reports whether a subscript is @ or *.
func allIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// integer reports whether s is a decimal integer, as test reads one.
func integer(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	return allDigits(s)
}

// hereArith notes a here-string's or here-doc's arithmetic that can fail
// (a division, a remainder, a power): its error ends the script, where
// bash fails the command only.
func (c *GapCheck) hereArith(pos syntax.Pos, w *syntax.Word) {
	if w == nil {
		return
	}
	found := false
	shast.Walk(w, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryArithm); ok {
			switch b.Op {
			case syntax.Quo, syntax.Rem, syntax.Pow:
				found = true
			}
		}
		return !found
	})
	if found {
		c.note(pos, &gapHereArith)
	}
}
