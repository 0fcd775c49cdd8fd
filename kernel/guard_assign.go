package kernel

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The guard's variable entries judge every variable a script sets by
// name. Two spellings name a variable other than the one written: a
// nameref (`declare -n ref=PATH; ref=x` sets PATH) and a brace expansion
// in a declaration's word (`export {PATH,X}=x` is two assignments, as
// bash brace-expands the word before declare reads it).

// maxNamerefDepth bounds how far a chain of namerefs is followed, as
// bash does.
const maxNamerefDepth = 8

// assigned is the variable an assignment to name sets: the target of the
// namerefs the script declared (anywhere in it: the check does not follow
// the order of execution) or the session holds, followed to the end.
func (v *validation) assigned(name string) string {
	for range maxNamerefDepth {
		target, ok := v.namerefs[name]
		if !ok {
			vr, set := v.s.runner.Vars[name]
			if !set || vr.Kind != expand.NameRef {
				return name
			}
			target = vr.Str
		}
		if target == "" || target == name {
			return name
		}
		name = target
	}
	return name
}

// declNames are the variables a declaration clause (declare, local,
// typeset, export, readonly) sets, each with where it is written: its
// assignments' names, and the names of a word that brace-expands
// ({PATH,X}=x). It records the namerefs it declares (-n NAME=TARGET)
// after taking their names as written: declaring a nameref sets the
// nameref, not its target.
func (v *validation) declNames(n *syntax.DeclClause) []declName {
	var out []declName
	nameref := false
	for _, a := range n.Args {
		switch {
		case a.Name != nil && nameref:
			out = append(out, declName{a.Name.Value, a.Pos()})
			if a.Value != nil {
				if w := shast.StaticWord(a.Value); !w.Opaque && isName(w.Text) {
					if v.namerefs == nil {
						v.namerefs = make(map[string]string)
					}
					v.namerefs[a.Name.Value] = w.Text
				}
			}
		case a.Name != nil:
			out = append(out, declName{v.assigned(a.Name.Value), a.Pos()})
		case a.Naked && a.Value != nil:
			if flag, ok := literalFlag(a.Value); ok {
				nameref = nameref || strings.ContainsRune(flag[1:], 'n') && flag[0] == '-'
				continue
			}
			for _, name := range bracedNames(a.Value) {
				out = append(out, declName{v.assigned(name), a.Pos()})
			}
		}
	}
	return out
}

type declName struct {
	name string
	pos  syntax.Pos
}

// literalFlag is a declaration's option word (-n, -gx, +x).
func literalFlag(w *syntax.Word) (string, bool) {
	lit := w.Lit()
	return lit, len(lit) > 1 && (lit[0] == '-' || lit[0] == '+') && isName(lit[1:])
}

// bracedNames are the variable names a word such as {PATH,HOME}=x or
// {PATH,HOME} expands to; none when it has no brace expansion or is not
// known before execution.
func bracedNames(w *syntax.Word) []string {
	if !strings.Contains(w.Lit(), "{") {
		return nil
	}
	// SplitBraces changes the word it is given: it gets a copy.
	word := &syntax.Word{Parts: make([]syntax.WordPart, len(w.Parts))}
	for i, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok {
			c := *lit
			p = &c
		}
		word.Parts[i] = p
	}
	if !syntax.SplitBraces(word) {
		return nil
	}
	var names []string
	for expanded, err := range expand.BracesSeq(nil, word) {
		if err != nil {
			break
		}
		name, _, _ := strings.Cut(expanded.Lit(), "=")
		name, _, _ = strings.Cut(name, "+") // NAME+=VALUE
		name, _, _ = strings.Cut(name, "[") // NAME[i]=VALUE
		if isName(name) {
			names = append(names, name)
		}
	}
	return names
}
