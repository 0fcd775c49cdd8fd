package static

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// assignedAnywhere are the names the script sets anywhere: assignments,
// declarations, for loops' names and the names builtins set (AssignedNames).
func (c *GapCheck) assignedAnywhere() map[string]bool {
	if c.assigned == nil {
		c.assigned = assignedNames(c.file, true)
	}
	return c.assigned
}

// assignedNames are the names node sets: assignments, for loops' names
// and the builtins' of AssignedNames; inFuncs says whether to look in
// functions' bodies too.
func assignedNames(node syntax.Node, inFuncs bool) map[string]bool {
	names := map[string]bool{}
	shast.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			return inFuncs
		case *syntax.Assign:
			if n.Name != nil && !n.Naked {
				names[n.Name.Value] = true
			}
		case *syntax.WordIter:
			names[n.Name.Value] = true
		case *syntax.CallExpr:
			for _, name := range callAssigns(n) {
				names[name] = true
			}
		}
		return true
	})
	return names
}

// assign looks at a plain assignment, before a command or alone.
func (c *GapCheck) assign(as *syntax.Assign, pos syntax.Pos) {
	if as.Name == nil {
		return
	}
	name := as.Name.Value
	switch name {
	case "CDPATH":
		c.note(as.Pos(), &gapCdpath)
	case "DIRSTACK":
		if as.Index != nil {
			c.note(as.Pos(), &gapDirstackElem)
		}
	case "IFS":
		if as.Value == nil {
			break
		}
		if t, ok := shast.LiteralText(as.Value); ok && strings.Trim(t, " \t\n") != "" {
			c.facts.ifsNonBlank = true
		}
	}
	if strings.ContainsAny(c.attrs[name], "lu") && !caseChanged(as) {
		c.note(as.Pos(), &gapCaseAttr)
	}
	if as.Index != nil && c.noValue[name] {
		c.noteIf(as.Pos(), &gapNounsetDeclared, func(c *GapCheck) bool { return c.facts.nounset })
	}
	if !as.Append && as.Array == nil && as.Index == nil {
		return
	}
	assoc := c.isAssoc(name)
	switch {
	case as.Append && as.Index != nil && shast.AppendsElement(as):
		// package rewrite makes it NAME[k]=${NAME[k]}STR
	case as.Array != nil && as == c.alone && shast.KeyedList(as):
		// package rewrite runs it by the array's kind
	case as.Append && as.Index != nil && !assoc:
		c.note(as.Pos(), &gapIndexedAppend)
	case as.Append && assoc:
		c.note(as.Pos(), &gapAssocAppend)
	case as.Array != nil && assoc:
		c.note(as.Pos(), &gapAssocReassign)
	case as.Index != nil && assoc:
		if _, word := as.Index.(*syntax.Word); !word {
			c.note(as.Pos(), &gapAssocArithKey)
		}
	}
}

func (c *GapCheck) decl(d *syntax.DeclClause) {
	variant := d.Variant.Value
	var flags string
	var names []string // the names assigned so far
	for _, as := range d.Args {
		if as.Name == nil {
			if t, ok := shast.LiteralText(as.Value); ok {
				if t == "-" && variant == "local" {
					c.note(as.Pos(), &gapLocalDash)
				}
				if strings.HasPrefix(t, "-") {
					flags += t[1:]
				}
			}
			continue
		}
		name := as.Name.Value
		if strings.ContainsAny(flags, "ilu") {
			if c.attrs == nil {
				c.attrs = make(map[string]string)
			}
			c.attrs[name] = flags
		}
		if strings.ContainsAny(flags, "lu") && !caseChanged(as) {
			c.note(as.Pos(), &gapCaseAttr)
		}
		if strings.Contains(flags, "p") && strings.ContainsAny(c.attrs[name], "ilu") {
			c.note(as.Pos(), &gapAttrPrint)
		}
		if strings.Contains(flags, "n") && variant != "export" {
			c.nameref(as)
		}
		if variant == "export" && strings.Contains(flags, "f") {
			c.note(as.Pos(), &gapExportF)
		}
		if as.Naked && strings.ContainsAny(flags, "aA") {
			if c.noValue == nil {
				c.noValue = make(map[string]bool)
			}
			c.noValue[name] = true
		}
		if as.Value != nil && readsAny(as.Value, names) && !shast.DeclOrderRewritable(d) {
			c.note(as.Pos(), &gapDeclOrder)
		}
		if !as.Naked {
			names = append(names, name)
		}
		if as.Append && c.isAssoc(name) {
			c.note(as.Pos(), &gapAssocAppend)
		}
	}
}

// nameref notes a name reference to an array element, and one that
// closes a loop of the references declared above.
func (c *GapCheck) nameref(as *syntax.Assign) {
	if as.Naked || as.Value == nil {
		return
	}
	t, ok := shast.LiteralText(as.Value)
	if !ok {
		return
	}
	if strings.Contains(t, "[") {
		c.note(as.Pos(), &gapNamerefElement)
		return
	}
	if c.targets == nil {
		c.targets = make(map[string]string)
	}
	c.targets[as.Name.Value] = t
	for range len(c.targets) {
		if t == as.Name.Value {
			c.note(as.Pos(), &gapNamerefCycle)
			return
		}
		if t, ok = c.targets[t]; !ok {
			return
		}
	}
}

// namerefs counts the script's declare -n of each name.
func (c *GapCheck) namerefs() map[string]int {
	if c.refs != nil {
		return c.refs
	}
	n := make(map[string]int)
	c.refs = n
	shast.Walk(c.file, func(node syntax.Node) bool {
		if d, ok := node.(*syntax.DeclClause); ok {
			declWalk(d, func(as *syntax.Assign, valType string) {
				if valType == "-n" {
					n[as.Name.Value]++
				}
			})
		}
		return true
	})
	return n
}

// readsAny reports whether w expands one of names.
func readsAny(w *syntax.Word, names []string) bool {
	found := false
	shast.Walk(w, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil {
			for _, name := range names {
				if p.Param.Value == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// caseChanged reports whether the rewrite changes the case of as's value
// for a -l or -u variable: a literal, or one expansion of a variable.
func caseChanged(as *syntax.Assign) bool {
	if as.Value == nil || as.Index != nil || as.Array != nil {
		return true
	}
	if _, literal := shast.LiteralText(as.Value); literal {
		return true
	}
	parts := as.Value.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	return ok && pe.Exp == nil && pe.Repl == nil && pe.Slice == nil && !pe.Length && !pe.Excl
}

// callAssigns are the names a builtin call sets (AssignedNames).
func callAssigns(call *syntax.CallExpr) []string {
	if len(call.Args) < 2 {
		return nil
	}
	words := make([]shast.Word, len(call.Args))
	for i, w := range call.Args {
		words[i] = shast.StaticWord(w)
	}
	return AssignedNames(words)
}
