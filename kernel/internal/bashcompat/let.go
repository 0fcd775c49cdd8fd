package bashcompat

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// letCall is let where mvdan/sh's own would differ from bash's, which the
// rewrites make a plain call (package rewrite, rewriteLetCall): an
// argument known only at run time (`let "a = $x * 2"`, `let $expr`),
// which mvdan/sh reads, expanded, as a number; a constant bash rejects
// (`let x=08`); a write to an array element (`let 'a[1]=5'`), which
// mvdan/sh's arithmetic cannot make. As in bash, each argument is an
// expression, evaluated in order, and the last one's value decides the
// status: the arguments become `(( ARG1, ARG2… ))`, and an array
// element's assignment `NAME[I]=$(( … ))`. An argument that is not an
// expression of names, numbers and operators (`$(…)` in a value, say)
// fails let with status 1, as in bash, before anything of it runs.
func letCall(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	if len(args) < 2 {
		fmt.Fprintln(hc.Stderr, "let: expression expected")
		return StatusArgv(1)
	}
	var stmts, exprs []string
	flush := func() {
		if len(exprs) > 0 {
			stmts = append(stmts, "(("+strings.Join(exprs, ",")+"))")
			exprs = nil
		}
	}
	last := ""
	for _, a := range args[1:] {
		x, why := letExpr(a)
		if why != "" {
			fmt.Fprintf(hc.Stderr, "let: %s: %s\n", a, why)
			flush()
			stmts = append(stmts, shast.Quote(shast.StatusWord)+" "+strconv.Itoa(1))
			return sh.Eval(hc, strings.Join(stmts, "; "))
		}
		if elem, value, ok := elementAssign(a, x); ok {
			flush()
			stmts = append(stmts, elem+"=$(("+value+"\n))")
			last = "((" + elem + "))"
			continue
		}
		exprs = append(exprs, "("+a+"\n)")
		last = ""
	}
	flush()
	if last != "" {
		stmts = append(stmts, last)
	}
	return sh.Eval(hc, strings.Join(stmts, "; "))
}

// letExpr parses a, one argument of let; why says what is wrong with it.
func letExpr(a string) (x syntax.ArithmExpr, why string) {
	if strings.TrimSpace(a) == "" {
		return nil, "syntax error: operand expected"
	}
	src := "((" + a + "\n))"
	if _, deep := shast.CheckNesting(src); deep {
		return nil, "expression nests too deep"
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, "syntax error in expression"
	}
	st := f.Stmts[0]
	ac, ok := st.Cmd.(*syntax.ArithmCmd)
	if !ok || len(st.Redirs) > 0 || st.Negated || st.Background {
		return nil, "syntax error in expression"
	}
	shast.Walk(ac.X, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Word:
			if msg, bad := rewrite.BadConstant(n); bad {
				why = msg
			}
			for _, p := range n.Parts {
				switch p := p.(type) {
				case *syntax.Lit:
				case *syntax.ParamExp:
					if !plainElement(p) {
						why = "syntax error: operand expected"
					}
				default:
					why = "syntax error: operand expected"
				}
			}
		case *syntax.UnaryArithm:
			if (n.Op == syntax.Inc || n.Op == syntax.Dec) && !shast.PlainName(n.X) {
				why = "cannot increment an array element in shelter; assign it: NAME[I]=$(( NAME[I] + 1 ))"
			}
		case *syntax.BinaryArithm:
			if _, assign := shast.ArithAssignOp(n.Op); assign && !shast.PlainName(n.X) && n != ac.X {
				why = "cannot assign an array element inside an expression in shelter; assign it alone: NAME[I]=$(( … ))"
			}
		}
		return true
	})
	return ac.X, why
}

// plainElement reports whether p is NAME[INDEX] and nothing more.
func plainElement(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Index != nil && !p.Excl && !p.Length && !p.Width &&
		p.Exp == nil && p.Repl == nil && p.Slice == nil && p.Names == 0 &&
		p.NestedParam == nil && len(p.Modifiers) == 0 && p.Flags == nil
}

// elementAssign is the element and the value's arithmetic when x, parsed
// from a, assigns an array element (`a[i] = 5`, `a[i] += 2`).
func elementAssign(a string, x syntax.ArithmExpr) (elem, value string, ok bool) {
	b, isBinary := x.(*syntax.BinaryArithm)
	if !isBinary {
		return "", "", false
	}
	op, assign := shast.ArithAssignOp(b.Op)
	w, isWord := b.X.(*syntax.Word)
	if !assign || !isWord || shast.PlainName(b.X) || len(w.Parts) != 1 {
		return "", "", false
	}
	if p, isParam := w.Parts[0].(*syntax.ParamExp); !isParam || !plainElement(p) {
		return "", "", false
	}
	// Offsets in a: the source parsed began with "((".
	text := func(n syntax.Node) string { return a[n.Pos().Offset()-2 : n.End().Offset()-2] }
	elem, value = text(b.X), text(b.Y)
	if op != "" {
		value = elem + " " + op + " (" + value + "\n)"
	}
	return elem, value, true
}
