package static

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

func (c *GapCheck) paramExp(p *syntax.ParamExp) {
	if p.Param == nil {
		return
	}
	name := p.Param.Value
	switch name {
	case "BASH", "BASH_VERSION", "SHLVL":
		// Variables bash sets that a session leaves unset.
		c.note(p.Pos(), &gapShellVars)
	}
	if p.Excl && p.Names != 0 && answersPrefix(name) {
		c.note(p.Pos(), &gapAnsweredVars)
	}
	switch {
	case name == "_":
		c.noteIf(p.Pos(), &gapUnderscore, func(c *GapCheck) bool { return len(c.facts.funcs) > 0 })
	case p.Exp == nil && p.Index == nil && !p.Excl && !p.Length && unboundable(name) && !c.in(scopeSubshell):
		if c.late && c.facts.nounset && !c.assignedAnywhere()[name] {
			c.note(p.Pos(), &gapNounset)
		}
	}
	if p.Length && p.Index != nil && allIndex(p.Index) && c.assocOfSession(name) {
		c.note(p.Pos(), &gapAssocCount)
	}
	if r := p.Repl; r != nil {
		if r.Orig != nil && len(r.Orig.Parts) > 0 {
			// An extglob pattern is matched by shelter, which anchors it.
			if lit, ok := r.Orig.Parts[0].(*syntax.Lit); ok && (strings.HasPrefix(lit.Value, "#") || strings.HasPrefix(lit.Value, "%")) && !hasExtGroup(lit.Value) {
				c.note(p.Pos(), &gapReplaceAnchor)
			}
		}
		if r.With != nil {
			for _, part := range r.With.Parts {
				lit, ok := part.(*syntax.Lit)
				switch {
				case !ok:
				case strings.Contains(lit.Value, "\\"):
					c.note(p.Pos(), &gapReplaceBackslash)
				case strings.Contains(lit.Value, "&"):
					c.note(p.Pos(), &gapReplaceAmp)
				}
			}
		}
	}
	e := p.Exp
	if e == nil {
		return
	}
	switch e.Op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		if e.Word == nil {
			break
		}
		for _, part := range e.Word.Parts {
			switch part := part.(type) {
			case *syntax.SglQuoted:
				if strings.ContainsAny(part.Value, "*?[") {
					c.note(p.Pos(), &gapQuotedPattern)
				}
			}
		}
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		if !c.in(scopeSubshell) {
			c.noteIf(p.Pos(), &gapErrorUnset, func(c *GapCheck) bool { return !c.assignedAnywhere()[name] })
		}
	case syntax.OtherParamOps:
		switch e.Word.Lit() {
		case "Q", "A", "a", "P":
			c.note(p.Pos(), &gapTransform)
		}
	}
}

// answeredVars are the variables a session answers as they are read,
// which no listing of names shows.
var answeredVars = append([]string{"SECONDS", "EPOCHSECONDS", "EPOCHREALTIME", "BASHPID", "BASH_SUBSHELL", "BASH_SOURCE", "BASH_LINENO"}, shast.IdentityVars...)

// answersPrefix reports whether ${!prefix*} would name one of
// answeredVars in bash.
func answersPrefix(prefix string) bool {
	for _, name := range answeredVars {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// dblQuoted looks at the expansions inside double quotes.
func (c *GapCheck) dblQuoted(d *syntax.DblQuoted) {
	for _, part := range d.Parts {
		p, ok := part.(*syntax.ParamExp)
		if !ok || p.Param == nil {
			continue
		}
		all := p.Param.Value == "@" || p.Index != nil && allIndex(p.Index)
		if p.Exp == nil || p.Exp.Word == nil {
			continue
		}
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
			syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			if all && (p.Exp.Op == syntax.DefaultUnset || p.Exp.Op == syntax.DefaultUnsetOrNull) {
				c.note(p.Pos(), &gapAtDefault)
			}
			for _, wp := range p.Exp.Word.Parts {
				if lit, ok := wp.(*syntax.Lit); ok && (strings.Contains(lit.Value, `\"`) || strings.Contains(lit.Value, `\$`)) {
					c.note(p.Pos(), &gapDefaultBackslash)
				}
			}
		}
	}
}

// unboundable reports whether name is one a script would set itself: a
// lowercase name, not one of the environment's or the shell's.
func unboundable(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := range len(name) {
		b := name[i]
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_') {
			return false
		}
	}
	return true
}
