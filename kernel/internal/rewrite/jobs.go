package rewrite

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// DetachJobs replaces each top-level `cmd &` of file with a command the
// call handler answers by starting it as a job of the session, and
// returns the statements it replaced, by index.
func DetachJobs(file *syntax.File) []*syntax.Stmt {
	var jobs []*syntax.Stmt
	for i, st := range file.Stmts {
		if !IsJob(st) {
			continue
		}
		call := &syntax.CallExpr{Args: []*syntax.Word{shast.LitWord(shast.CmdJob), shast.LitWord(strconv.Itoa(len(jobs)))}}
		file.Stmts[i] = &syntax.Stmt{Position: st.Position, Cmd: call, Comments: st.Comments}
		jobs = append(jobs, st)
	}
	return jobs
}

// IsJob reports a top-level statement that becomes a job of the
// session: `cmd &`, not a coprocess.
func IsJob(st *syntax.Stmt) bool { return st.Background && !st.Coprocess }
