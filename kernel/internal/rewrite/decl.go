package rewrite

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// declQueryFlags are the flags, by clause, whose clauses the call handler
// answers.
var declQueryFlags = map[string][]string{
	"declare":  {"-F", "-f", "-p", "+x"},
	"typeset":  {"-F", "-f", "-p", "+x"},
	"export":   {"-p", "-n"},
	"readonly": {"-p"},
}

// rewriteDeclQuery turns st's declaration clause into a call when the
// call handler answers it (see declQueryFlags).
func rewriteDeclQuery(st *syntax.Stmt) {
	dc, ok := st.Cmd.(*syntax.DeclClause)
	if !ok {
		return
	}
	allowed := declQueryFlags[dc.Variant.Value]
	if allowed == nil {
		return
	}
	words := []*syntax.Word{shast.LitWord(dc.Variant.Value)}
	flags := 0
	for _, as := range dc.Args {
		if !as.Naked || as.Array != nil || as.Index != nil {
			return
		}
		w := as.Value
		if w == nil {
			w = shast.LitWord(as.Name.Value)
		}
		if lit := w.Lit(); len(lit) > 1 && (lit[0] == '-' || lit[0] == '+') {
			if !slices.Contains(allowed, lit) {
				return
			}
			flags++
		} else if lit == "" && flags == 0 {
			// A computed word that may be a flag or an assignment.
			return
		}
		words = append(words, w)
	}
	if flags == 0 && (dc.Variant.Value == "declare" || dc.Variant.Value == "typeset" || len(words) > 1) {
		return
	}
	st.Cmd = &syntax.CallExpr{Args: words}
}

// rewriteDeclList turns `declare -r`, `typeset -x` and the like, flags
// alone, into a call: the call handler lists the variables with those
// attributes, where mvdan/sh's clause lists nothing.
func rewriteDeclList(st *syntax.Stmt) {
	dc, ok := st.Cmd.(*syntax.DeclClause)
	if !ok || dc.Variant.Value != "declare" && dc.Variant.Value != "typeset" || len(dc.Args) == 0 {
		return
	}
	words := []*syntax.Word{shast.LitWord(dc.Variant.Value)}
	for _, as := range dc.Args {
		lit := declFlag(as)
		if lit == "" || lit[0] != '-' || strings.Trim(lit[1:], "rxaAn") != "" {
			return
		}
		words = append(words, as.Value)
	}
	st.Cmd = &syntax.CallExpr{Args: words}
}

// declPrefixed reports whether c is a declaration builtin run with prefix
// assignments (`t=foo declare -r t`), which mvdan/sh parses as a call.
func declPrefixed(c *syntax.CallExpr) bool {
	if len(c.Assigns) == 0 || len(c.Args) < 2 {
		return false
	}
	switch c.Args[0].Lit() {
	case "declare", "typeset", "export", "readonly", "local":
		return true
	}
	return false
}

// rewriteDeclPrefix gives a declaration builtin's prefix assignment to the
// name it declares, as bash does: a variable of the temporary
// environment that export, readonly, local or declare -r/-x names keeps
// its value, exported, where any other prefix assignment ends with the
// command. So `t=foo declare -r t` becomes the call `declare -rx t="foo"`
// (the call handler makes it a declaration, declClause). mvdan/sh would
// set the declared name, then put back the old value over it. Only a
// naked name is rewritten, and only when the prefix value can become a
// double-quoted part as it is (no backslash, no leading tilde).
func rewriteDeclPrefix(st *syntax.Stmt) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || !declPrefixed(c) {
		return
	}
	variant := c.Args[0].Lit()
	keeps := variant != "declare" && variant != "typeset"
	names := 0
	i := 1
	for ; i < len(c.Args); i++ {
		lit := c.Args[i].Lit()
		if lit == "--" {
			i++
			break
		}
		if len(lit) < 2 || lit[0] != '-' && lit[0] != '+' {
			if lit == "" {
				return // a computed word: a flag or a name
			}
			break
		}
		if lit[0] == '-' && strings.ContainsAny(lit, "rx") {
			keeps = true
		}
		if strings.ContainsAny(lit, "pfFn") {
			return // a listing, functions, a reference
		}
	}
	if !keeps {
		return
	}
	var moved []*syntax.Assign
	for _, w := range c.Args[i:] {
		names++
		as := prefixOf(c.Assigns, w.Lit())
		if as == nil || !shast.DoubleQuotable(as.Value) {
			continue
		}
		parts := []syntax.WordPart{&syntax.Lit{ValuePos: w.Pos(), Value: as.Name.Value + "="}}
		if as.Value != nil {
			parts = append(parts, &syntax.DblQuoted{Left: as.Value.Pos(), Right: as.Value.End(), Parts: as.Value.Parts})
		}
		w.Parts = parts
		moved = append(moved, as)
	}
	if len(moved) == 0 {
		return
	}
	c.Assigns = slices.DeleteFunc(c.Assigns, func(as *syntax.Assign) bool { return slices.Contains(moved, as) })
	if len(moved) == names && variant != "export" {
		// The temporary variable was exported: so is what it became.
		c.Args = slices.Insert(c.Args, 1, shast.LitWord("-x"))
	}
}

// prefixOf is the last of assigns that sets name, when it is a plain
// assignment (no index, list or +=); nil otherwise.
func prefixOf(assigns []*syntax.Assign, name string) *syntax.Assign {
	if name == "" {
		return nil
	}
	for _, as := range slices.Backward(assigns) {
		if as.Name != nil && as.Name.Value == name {
			if as.Append || as.Index != nil || as.Array != nil {
				return nil
			}
			return as
		}
	}
	return nil
}

// rewriteLocalNames makes `local NAME...`, names alone, a call, which the
// call handler answers with a local that is unset (bashcompat's
// localCall), as bash's: mvdan/sh's local copies the value of the
// variable it hides.
func rewriteLocalNames(st *syntax.Stmt) {
	dc, ok := st.Cmd.(*syntax.DeclClause)
	if !ok || dc.Variant.Value != "local" || len(dc.Args) == 0 {
		return
	}
	words := []*syntax.Word{shast.LitWord("local")}
	for _, as := range dc.Args {
		if !as.Naked || as.Name == nil || as.Value != nil || as.Index != nil || !syntax.ValidName(as.Name.Value) {
			return
		}
		words = append(words, &syntax.Word{Parts: []syntax.WordPart{as.Name}})
	}
	st.Cmd = &syntax.CallExpr{Args: words}
}

// splitDeclFlags splits a declaration clause's combined flags (`-rx`,
// `-ga`) into one word each: mvdan/sh's clause takes the first letter of
// a word and drops the rest.
func splitDeclFlags(st *syntax.Stmt) {
	dc, ok := st.Cmd.(*syntax.DeclClause)
	if !ok || !slices.ContainsFunc(dc.Args, combinedFlag) {
		return
	}
	var args []*syntax.Assign
	for _, as := range dc.Args {
		if !combinedFlag(as) {
			args = append(args, as)
			continue
		}
		lit := declFlag(as)
		for _, f := range lit[1:] {
			args = append(args, &syntax.Assign{Naked: true, Value: shast.LitWord(string(lit[0]) + string(f))})
		}
	}
	dc.Args = args
}

func combinedFlag(as *syntax.Assign) bool {
	lit := declFlag(as)
	return len(lit) > 2 && lit != "--" && strings.Trim(lit[1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// rewriteDeclOrder makes a declaration clause whose value reads an
// earlier operand (`local a=1 b=$a`) a call, whose words are all
// expanded before the call handler declares them (declClause), as bash
// expands them; each value becomes a double-quoted part, which is not
// split, as a declaration's value is not.
func rewriteDeclOrder(st *syntax.Stmt) {
	dc, ok := st.Cmd.(*syntax.DeclClause)
	if !ok || !shast.DeclOrderRewritable(dc) || declAttrs(st) {
		return
	}
	words := []*syntax.Word{shast.LitWord(dc.Variant.Value)}
	for _, as := range dc.Args {
		switch {
		case as.Name == nil:
			words = append(words, as.Value)
		case as.Naked:
			words = append(words, &syntax.Word{Parts: []syntax.WordPart{as.Name}})
		default:
			op := "="
			if as.Append {
				op = "+="
			}
			parts := []syntax.WordPart{&syntax.Lit{ValuePos: as.Pos(), Value: as.Name.Value + op}}
			if as.Value != nil {
				parts = append(parts, &syntax.DblQuoted{Left: as.Value.Pos(), Right: as.Value.End(), Parts: as.Value.Parts})
			}
			words = append(words, &syntax.Word{Parts: parts})
		}
	}
	st.Cmd = &syntax.CallExpr{Args: words}
}
