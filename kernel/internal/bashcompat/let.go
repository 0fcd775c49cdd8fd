package bashcompat

import (
	"context"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// letCall is let with an argument known only at run time (`let "a = $x *
// 2"`, `let $expr`), which the rewrites make a plain call (package
// rewrite, rewriteLetCall): as bash does, each argument, expanded, is an
// expression, and let is `(( ARG1, ARG2… ))` — the last one's value
// decides the status. mvdan/sh's own let would read each expanded word
// as a number. An argument that is not an expression of names, numbers
// and operators (`$(…)` in a value, say) is a syntax error, status 1, as
// in bash: nothing in it runs.
func letCall(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	if len(args) < 2 {
		fmt.Fprintln(hc.Stderr, "let: expression expected")
		return StatusArgv(1)
	}
	parts := make([]string, len(args)-1)
	for i, a := range args[1:] {
		if strings.TrimSpace(a) == "" {
			fmt.Fprintf(hc.Stderr, "let: %s: syntax error: operand expected\n", a)
			return StatusArgv(1)
		}
		parts[i] = "(" + a + "\n)"
	}
	src := "((" + strings.Join(parts, ",") + "))"
	if _, deep := shast.CheckNesting(src); deep {
		fmt.Fprintln(hc.Stderr, "let: expression nests too deep")
		return StatusArgv(1)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil || len(f.Stmts) != 1 {
		fmt.Fprintf(hc.Stderr, "let: %s: syntax error in expression\n", strings.Join(args[1:], " "))
		return StatusArgv(1)
	}
	if why, ok := letRefusal(f.Stmts[0]); !ok {
		fmt.Fprintf(hc.Stderr, "let: %s\n", why)
		return StatusArgv(1)
	}
	return sh.Eval(hc, src)
}

// letRefusal checks st, the (( )) that let's arguments make: one
// arithmetic command of numbers, names, array elements it reads and
// operators, writing to names only (mvdan/sh's arithmetic cannot write
// to an array element).
func letRefusal(st *syntax.Stmt) (why string, ok bool) {
	ac, isArithm := st.Cmd.(*syntax.ArithmCmd)
	if !isArithm || len(st.Redirs) > 0 || st.Negated || st.Background {
		return "syntax error in expression", false
	}
	ok = true
	shast.Walk(ac.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			for _, p := range n.Parts {
				switch p := p.(type) {
				case *syntax.Lit:
				case *syntax.ParamExp:
					if p.Param == nil || p.Excl || p.Length || p.Width || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Names != 0 || p.NestedParam != nil || len(p.Modifiers) > 0 || p.Flags != nil {
						why, ok = "syntax error: operand expected", false
					}
				default:
					why, ok = "syntax error: operand expected", false
				}
			}
		case *syntax.UnaryArithm:
			if (n.Op == syntax.Inc || n.Op == syntax.Dec) && !shast.PlainName(n.X) {
				why, ok = "cannot write to an array element in arithmetic; assign it: NAME[I]=$(( … ))", false
			}
		case *syntax.BinaryArithm:
			if _, assign := shast.ArithAssignOp(n.Op); assign && !shast.PlainName(n.X) {
				why, ok = "cannot write to an array element in arithmetic; assign it: NAME[I]=$(( … ))", false
			}
		}
		return ok
	})
	return why, ok
}
