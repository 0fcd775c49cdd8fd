package rewrite

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// PIPESTATUS, which mvdan/sh does not keep (docs/mvdan.md, "PIPESTATUS"),
// in a script that reads it: each pipeline notes the status of each of
// its commands that fails (the internal pipe-rec command, keyed by the
// pipeline's offset in the script and the command's index), and sets
// PIPESTATUS after it from what was noted (pipe-set; a command not noted
// succeeded). A command that reads PIPESTATUS after a statement that is
// not a pipeline is preceded by pipe-set of $? alone.
//
// A command but the last of a pipeline runs in a subshell of its own
// within the pipeline's, so that its `exit N` and set -e end that
// subshell, not the noting; the last runs as `CMD || pipe-rec`, in the
// shell as before. pipe-set keeps the pipeline's status, as an && list,
// which set -e and the ERR trap do not judge again.

// PipelineKey is the key the notes of a pipeline at pos go by.
func PipelineKey(pos syntax.Pos) string { return strconv.FormatUint(uint64(pos.Offset()), 10) }

// readsPipestatus reports whether pe is $PIPESTATUS in any form.
func readsPipestatus(pe *syntax.ParamExp) bool {
	return pe.Param != nil && pe.Param.Value == "PIPESTATUS"
}

// notePipelines rewrites every foreground pipeline of file, and puts
// pipe-set before a statement that reads PIPESTATUS after one that is
// not a pipeline.
func notePipelines(file *syntax.File) {
	inner := map[*syntax.Stmt]bool{} // the pipelines within a pipeline
	var lists []*[]*syntax.Stmt
	shast.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if b, ok := pipeline(n); ok && !inner[n] {
				markInner(b, inner)
				inner[notePipeline(n, b)] = true
			}
		case *syntax.File:
			lists = append(lists, &n.Stmts)
		case *syntax.Block:
			lists = append(lists, &n.Stmts)
		case *syntax.Subshell:
			lists = append(lists, &n.Stmts)
		case *syntax.IfClause:
			lists = append(lists, &n.Cond, &n.Then)
		case *syntax.WhileClause:
			lists = append(lists, &n.Cond, &n.Do)
		case *syntax.ForClause:
			lists = append(lists, &n.Do)
		case *syntax.CaseItem:
			lists = append(lists, &n.Stmts)
		case *syntax.CmdSubst:
			lists = append(lists, &n.Stmts)
		}
		return true
	})
	for _, l := range lists {
		setBeforeReads(l)
	}
}

// pipeline is st's pipe when st is a foreground pipeline shelter may note.
func pipeline(st *syntax.Stmt) (*syntax.BinaryCmd, bool) {
	b, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll || st.Background || st.Coprocess || st.Disown || len(st.Redirs) > 0 {
		return nil, false
	}
	return b, true
}

func markInner(b *syntax.BinaryCmd, inner map[*syntax.Stmt]bool) {
	for _, side := range []*syntax.Stmt{b.X, b.Y} {
		if nb, ok := pipeline(side); ok && !side.Negated {
			inner[side] = true
			markInner(nb, inner)
		}
	}
}

// notePipeline rewrites st, the pipeline b: each command notes its
// failure, and pipe-set follows. It returns the statement that now runs
// the pipeline.
func notePipeline(st *syntax.Stmt, b *syntax.BinaryCmd) *syntax.Stmt {
	key := PipelineKey(st.Pos())
	n := 0
	var note func(b *syntax.BinaryCmd, last bool)
	note = func(b *syntax.BinaryCmd, last bool) {
		sides := []**syntax.Stmt{&b.X, &b.Y}
		for i, side := range sides {
			if nb, ok := pipeline(*side); ok && !(*side).Negated {
				note(nb, last && i == 1)
				continue
			}
			*side = notedCommand(*side, key, n, last && i == 1)
			n++
		}
	}
	note(b, true)
	inner := &syntax.Stmt{Position: st.Pos(), Cmd: b}
	set := shast.CallStmt(syntax.Pos{}, shast.LitWord(shast.CmdPipeSet), shast.LitWord(key), shast.LitWord(strconv.Itoa(n)))
	st.Cmd = &syntax.Block{Lbrace: st.Pos(), Stmts: []*syntax.Stmt{inner, keeping(set)}}
	return inner
}

// notedCommand is cmd, command i of the pipeline key, noting its failure.
func notedCommand(cmd *syntax.Stmt, key string, i int, last bool) *syntax.Stmt {
	rec := shast.CallStmt(syntax.Pos{}, shast.LitWord(shast.CmdPipeRec), shast.LitWord(key), shast.LitWord(strconv.Itoa(i)))
	x := cmd
	if !last || exits(cmd) {
		x = &syntax.Stmt{Position: cmd.Pos(), Cmd: &syntax.Subshell{Lparen: cmd.Pos(), Stmts: []*syntax.Stmt{cmd}}}
	}
	return &syntax.Stmt{Position: cmd.Pos(), Cmd: &syntax.BinaryCmd{Op: syntax.OrStmt, X: x, Y: rec}}
}

// exits reports whether st is an exit command, which ends only its own
// subshell in a pipeline, where mvdan/sh runs the last command in the
// shell.
func exits(st *syntax.Stmt) bool {
	call, ok := st.Cmd.(*syntax.CallExpr)
	return ok && len(call.Args) > 0 && call.Args[0].Lit() == "exit"
}

// keeping is st as the first of an && list whose second is a success: a
// failure of st is not judged by set -e or the ERR trap.
func keeping(st *syntax.Stmt) *syntax.Stmt {
	return &syntax.Stmt{Cmd: &syntax.BinaryCmd{Op: syntax.AndStmt, X: st, Y: shast.ExitWith(0)}}
}

// setBeforeReads puts pipe-set of $? before each statement of list that
// reads PIPESTATUS after one that is not a noted pipeline.
func setBeforeReads(list *[]*syntax.Stmt) {
	stmts := *list
	var out []*syntax.Stmt
	for i, st := range stmts {
		if i > 0 && !endsWithPipeline(stmts[i-1]) && readsPipestatusIn(st) {
			out = append(out, keeping(shast.CallStmt(syntax.Pos{}, shast.LitWord(shast.CmdPipeSet))))
		}
		out = append(out, st)
	}
	if len(out) != len(stmts) {
		*list = out
	}
}

// endsWithPipeline reports whether the last command st runs is a pipeline
// notePipeline rewrote, which set PIPESTATUS: st itself, or the last of a
// { } group, of a for loop's body or of every branch of an if with an
// else. (A while loop's last command is its condition.)
func endsWithPipeline(st *syntax.Stmt) bool {
	last := func(list []*syntax.Stmt) bool { return len(list) > 0 && endsWithPipeline(list[len(list)-1]) }
	switch cmd := st.Cmd.(type) {
	case *syntax.Block:
		return notedPipeline(st) || last(cmd.Stmts)
	case *syntax.ForClause:
		return last(cmd.Do)
	case *syntax.IfClause:
		for b := cmd; ; b = b.Else {
			if !last(b.Then) {
				return false
			}
			if b.Else == nil {
				return len(b.Cond) == 0 // the else, not an if without one
			}
		}
	}
	return false
}

// notedPipeline reports whether st is a pipeline notePipeline rewrote.
func notedPipeline(st *syntax.Stmt) bool {
	blk, ok := st.Cmd.(*syntax.Block)
	if !ok || len(blk.Stmts) != 2 {
		return false
	}
	and, ok := blk.Stmts[1].Cmd.(*syntax.BinaryCmd)
	if !ok || and.Op != syntax.AndStmt {
		return false
	}
	call, ok := and.X.Cmd.(*syntax.CallExpr)
	return ok && len(call.Args) == 3 && call.Args[0].Lit() == shast.CmdPipeSet
}

// readsPipestatusIn reports whether st reads PIPESTATUS, outside the
// functions it defines.
func readsPipestatusIn(st *syntax.Stmt) bool {
	found := false
	shast.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			return false
		case *syntax.ParamExp:
			found = found || readsPipestatus(n)
		}
		return !found
	})
	return found
}
