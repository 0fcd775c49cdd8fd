package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// A construct shelter does not run is refused where it runs, not where it
// merely appears (docs/embedding.md, "Validation before execution"): its
// statement becomes the internal refuse command, which prints the
// refusal and fails with status 2 as a failing command would, so that a
// function never called, or a branch never taken, costs the script
// nothing; the rest of the script runs as bash would.

// CoprocRefusal is the line that refuses a coprocess, after its command.
const CoprocRefusal = "is not supported; allowed: a background job writing to a file (cmd > file &)"

// refuseCoproc makes st, a coprocess, run the refuse command.
func refuseCoproc(st *syntax.Stmt) {
	if co, ok := st.Cmd.(*syntax.CoprocClause); ok {
		refuse(st, "coproc: '"+oneLine(co)+"' "+CoprocRefusal)
	}
}

// RefuseProcSubsts makes each statement of file that expands a process
// substitution run the refuse command with line instead (the sandbox's
// refusal): the statement nearest to the substitution, so that its
// enclosing ones still run. It reports whether it changed file.
func RefuseProcSubsts(file *syntax.File, line string) bool {
	var stack, found []*syntax.Stmt
	var walk func(n syntax.Node) bool
	walk = func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			stack = append(stack, n)
			shast.Walk(n.Cmd, walk)
			for _, r := range n.Redirs {
				shast.Walk(r, walk)
			}
			stack = stack[:len(stack)-1]
			return false
		case *syntax.ProcSubst:
			if len(stack) > 0 {
				found = append(found, stack[len(stack)-1])
			}
			return false
		}
		return true
	}
	for _, st := range file.Stmts {
		walk(st)
	}
	for _, st := range found {
		refuse(st, line)
	}
	return len(found) > 0
}

// refuse makes st run the refuse command with line, keeping how it runs
// (in the background, its position) and nothing of what it ran.
func refuse(st *syntax.Stmt, line string) {
	st.Cmd = &syntax.CallExpr{Args: []*syntax.Word{shast.LitWord(shast.CmdRefuse), shast.LitWord(line)}}
	st.Redirs, st.Negated = nil, false
}

// oneLine is n's source text on one line.
func oneLine(n syntax.Node) string {
	var b strings.Builder
	syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n)
	return strings.TrimSpace(b.String())
}
