package kernel

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/kernel/internal/static"
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
			vr := v.s.ownVar(name)
			if vr.Kind != expand.NameRef {
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
				if w := shast.StaticWord(a.Value); !w.Opaque && static.IsName(w.Text) {
					if v.namerefs == nil {
						v.namerefs = make(map[string]string)
					}
					v.namerefs[a.Name.Value] = w.Text
				}
			}
		case a.Name != nil:
			out = append(out, declName{v.assigned(a.Name.Value), a.Pos()})
		case a.Naked && a.Value != nil:
			if flag, ok := static.LiteralFlag(a.Value); ok {
				nameref = nameref || strings.ContainsRune(flag[1:], 'n') && flag[0] == '-'
				continue
			}
			for _, name := range static.BracedNames(a.Value) {
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
