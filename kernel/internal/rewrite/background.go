package rewrite

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// A `&` nested in a function, subshell or group is mvdan/sh's own
// background, whose $! is "gN", the N-th of the shell running it. The
// kernel makes kill know it: markBackgrounds puts the internal commands
// bg-next before and bg-launched after each, and the kernel answers them
// (see its bang.go).

// BangVar is what $! reads (renameBang), which the kernel sets: the
// latest background of the shell, a job's pid (set by the job command) or
// a nested background's "gN" (set by bg-launched). mvdan/sh's own $! would answer "gN" in every
// later call once any nested background ran.
const BangVar = "SHELTER_BANG"

// renameBang makes pe read BangVar when it is $!; the "$!" bg-launched
// takes is mvdan/sh's own, built after the walk met its list.
func renameBang(pe *syntax.ParamExp) {
	if pe.Param != nil && pe.Param.Value == "!" && !pe.Excl && !bangOfMark(pe) {
		pe.Param = &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: BangVar}
	}
}

// markBackgrounds puts bg-next before and bg-launched after each
// background statement of stmts; the top level of the script is left
// alone, as those statements become the session's jobs.
func markBackgrounds(stmts *[]*syntax.Stmt) {
	var out []*syntax.Stmt
	for i, st := range *stmts {
		if !st.Background {
			if out != nil {
				out = append(out, st)
			}
			continue
		}
		if out == nil {
			out = append(make([]*syntax.Stmt, 0, len(*stmts)+2), (*stmts)[:i]...)
		}
		out = append(out,
			shast.CallStmt(st.Position, shast.LitWord(shast.CmdBgNext)),
			st,
			shast.CallStmt(st.Position, shast.LitWord(shast.CmdBgLaunched), shast.QuotedParam("!")))
	}
	if out != nil {
		*stmts = out
	}
}

// bangOfMark reports whether pe is the $! of a bg-launched, which has no
// position (shast.QuotedParam) as no script wrote it.
func bangOfMark(pe *syntax.ParamExp) bool { return !pe.Param.ValuePos.IsValid() }
