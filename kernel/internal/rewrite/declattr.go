package rewrite

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The attributes mvdan/sh's declaration clause refuses (docs/embedding.md,
// "Bash compatibility"): -i (integer), -l and -u (lower and upper case),
// -t (trace, which only functions use). mvdan/sh's variables cannot hold
// them, and the whole clause fails with "invalid option", so the value is
// lost. The rewrite takes the letters out of the flags and does their
// work on the values assigned, in the clause and in every later
// assignment to the name in the script (in the function, for a local):
// an integer variable's value becomes an arithmetic expansion, `n+=v`
// adding; a lower or upper case variable's literal value changes case,
// and so does a value that is one expansion of a variable (`"$1"`, which
// becomes `"${1,,}"`). Other values of a case variable, values that read
// the variable an integer's value names as an expression, and names a
// clause makes at run time are not covered.

// attrLetters are the flag letters the rewrite takes out.
const attrLetters = "ilut"

// declAttrs reports whether st is a declaration clause with a flag the
// rewrite takes out.
func declAttrs(st *syntax.Stmt) bool {
	dc, ok := st.Cmd.(*syntax.DeclClause)
	if !ok {
		return false
	}
	for _, as := range dc.Args {
		if lit := declFlag(as); lit != "" && lit[0] == '-' && strings.ContainsAny(lit, attrLetters) {
			return true
		}
	}
	return false
}

// declFlag is as's text when it is a literal flag; "" when it is not.
func declFlag(as *syntax.Assign) string {
	if !as.Naked || as.Value == nil || as.Name != nil {
		return ""
	}
	if lit := as.Value.Lit(); len(lit) > 1 && (lit[0] == '-' || lit[0] == '+') {
		return lit
	}
	return ""
}

// rewriteDeclAttrs does the work of the attributes declAttrs finds, in
// the whole file: integer names are each function's own (and the top
// level's, which every function shares).
func rewriteDeclAttrs(file *syntax.File) {
	ints := map[*syntax.FuncDecl][]attrName{}
	var collect func(root syntax.Node, fn *syntax.FuncDecl)
	collect = func(root syntax.Node, fn *syntax.FuncDecl) {
		shast.Walk(root, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.FuncDecl:
				if n != root {
					collect(n.Body, n)
					return false
				}
			case *syntax.DeclClause:
				ints[fn] = append(ints[fn], takeAttrs(n)...)
			}
			return true
		})
	}
	collect(file, nil)
	var apply func(root syntax.Node, names []attrName)
	apply = func(root syntax.Node, names []attrName) {
		shast.Walk(root, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.FuncDecl:
				apply(n.Body, append(slices.Clip(ints[nil]), ints[n]...))
				return false
			case *syntax.Assign:
				if n.Name == nil {
					break
				}
				for _, a := range slices.Backward(names) {
					if a.name == n.Name.Value {
						attrAssign(n, a.attr)
						break
					}
				}
			}
			return true
		})
	}
	apply(file, ints[nil])
}

// attrName is a name declared with an attribute: 'i', 'l' or 'u'.
type attrName struct {
	name string
	attr byte
}

// takeAttrs takes the attribute letters out of dc's flags and returns
// the names it declares with one; the values are changed with the
// others' (attrAssign).
func takeAttrs(dc *syntax.DeclClause) (names []attrName) {
	var integer, lower, upper bool
	args := dc.Args[:0]
	for _, as := range dc.Args {
		lit := declFlag(as)
		if lit == "" || lit[0] != '-' || !strings.ContainsAny(lit, attrLetters) {
			args = append(args, as)
			continue
		}
		integer = integer || strings.ContainsRune(lit, 'i')
		lower = lower || strings.ContainsRune(lit, 'l')
		upper = upper || strings.ContainsRune(lit, 'u')
		if rest := strings.Map(func(r rune) rune {
			if strings.ContainsRune(attrLetters, r) {
				return -1
			}
			return r
		}, lit); rest != "-" {
			args = append(args, &syntax.Assign{Naked: true, Value: shast.LitWord(rest)})
		}
	}
	dc.Args = args
	var attr byte
	switch {
	case integer:
		attr = 'i'
	case lower && !upper:
		attr = 'l'
	case upper && !lower:
		attr = 'u'
	default:
		return nil
	}
	for _, as := range dc.Args {
		if as.Name != nil && as.Index == nil && as.Array == nil {
			names = append(names, attrName{as.Name.Value, attr})
		}
	}
	return names
}

// attrAssign changes as, an assignment to a name declared with attr, as
// the attribute would change its value.
func attrAssign(as *syntax.Assign, attr byte) {
	if attr == 'i' {
		integerAssign(as)
		return
	}
	if as.Naked || as.Index != nil || as.Array != nil || as.Value == nil {
		return
	}
	if text, ok := shast.LiteralText(as.Value); ok {
		if attr == 'l' {
			text = strings.ToLower(text)
		} else {
			text = strings.ToUpper(text)
		}
		as.Value = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Left: as.Value.Pos(), Right: as.Value.End(), Value: text}}}
		return
	}
	parts := as.Value.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Exp != nil || pe.Repl != nil ||
		pe.Slice != nil || pe.Names != 0 || pe.NestedParam != nil || len(pe.Modifiers) > 0 || pe.Flags != nil {
		return
	}
	op := syntax.UpperAll
	if attr == 'l' {
		op = syntax.LowerAll
	}
	changed := *pe
	changed.Short = false
	changed.Exp = &syntax.Expansion{Op: op}
	as.Value = &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Left: as.Value.Pos(), Right: as.Value.End(), Parts: []syntax.WordPart{&changed}}}}
}

// integerAssign makes as, an assignment to an integer variable, assign
// its value's arithmetic (`n+=v` the sum).
func integerAssign(as *syntax.Assign) {
	if as.Naked || as.Index != nil || as.Array != nil {
		return
	}
	var x syntax.ArithmExpr = shast.LitWord("0")
	if as.Value != nil {
		if text, ok := shast.LiteralText(as.Value); ok {
			parsed, ok := parseArithm(text)
			if !ok {
				return // what bash would fail on, left to mvdan/sh
			}
			if strings.TrimSpace(text) != "" {
				x = parsed
			}
		} else {
			x = wordArithm(as.Value)
		}
	}
	if as.Append {
		x = &syntax.BinaryArithm{Op: syntax.Add, X: shast.LitWord(as.Name.Value), Y: &syntax.ParenArithm{X: x}}
		as.Append = false
	}
	as.Value = &syntax.Word{Parts: []syntax.WordPart{&syntax.ArithmExp{Left: as.Pos(), Right: as.End(), X: x}}}
}

// wordArithm is w, a value with an expansion, as the arithmetic of its
// text (`$x*2`), as bash evaluates an integer's value; w itself, read as
// a number, when its text does not parse or writes what mvdan/sh's
// arithmetic cannot.
func wordArithm(w *syntax.Word) syntax.ArithmExpr {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, w); err != nil || strings.ContainsRune(b.String(), '\n') {
		return w
	}
	x, err := syntax.NewParser().Arithmetic(strings.NewReader(b.String()))
	if err != nil || x == nil || letGuarded(x) {
		return w
	}
	return x
}
