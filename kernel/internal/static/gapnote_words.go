package static

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

func (c *GapCheck) redirect(r *syntax.Redirect) {
	fd := -1 // the descriptor the redirection names, -1 for the default
	if r.N != nil {
		if !allDigits(r.N.Value) {
			c.note(r.Pos(), &gapFdAbove2) // {fd}>
			return
		}
		fd = atoi(r.N.Value)
	}
	if fd > 2 {
		if c.facts.fds == nil {
			c.facts.fds = make(map[string]bool)
		}
		c.facts.fds[r.N.Value] = true
		c.note(r.Pos(), &gapFdAbove2)
		return
	}
	switch r.Op {
	case syntax.DplOut, syntax.DplIn:
		w := r.Word.Lit()
		switch {
		case w == "-":
			c.note(r.Pos(), &gapCloseFd)
		case allDigits(w) && atoi(w) > 2:
			// A descriptor nothing opened fails in bash too.
			c.noteIf(r.Pos(), &gapFdAbove2, func(c *GapCheck) bool { return c.facts.fds[w] })
		case fd == 2 && w == "1":
			c.facts.stderrToStdout = true
		}
	case syntax.ClbOut:
		c.note(r.Pos(), &gapClobber)
	case syntax.RdrInOut:
		c.note(r.Pos(), &gapReadWrite)
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

// extglobLiteral notes an extglob pattern that holds no other glob.
func (c *GapCheck) extglobLiteral(words []*syntax.Word, pos syntax.Pos) {
	for _, w := range words {
		ext, glob := false, false
		for _, part := range w.Parts {
			switch part := part.(type) {
			case *syntax.ExtGlob:
				ext = true
				glob = glob || strings.ContainsAny(part.Pattern.Value, "*?[")
			case *syntax.Lit:
				glob = glob || strings.ContainsAny(part.Value, "*?[")
			}
		}
		if ext && !glob {
			c.note(pos, &gapExtglobLiteral)
		}
	}
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

func atoi(s string) int {
	n := 0
	for i := range len(s) {
		n = n*10 + int(s[i]-'0')
		if n > 1<<20 {
			return n
		}
	}
	return n
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
