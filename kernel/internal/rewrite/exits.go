package rewrite

import (
	"slices"
	"strconv"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// mvdan/sh checks for a break or continue only between the statements of
// a loop's body: after `break` in a group, an if, a case or an && list
// nested in the body, the rest of that list still runs. In
//
//	for x in a stop b; do
//		if [ -n "$x" ]; then
//			if [ "$x" = stop ]; then break; fi
//			echo "processing $x"
//		fi
//	done
//
// bash prints one line and mvdan/sh two. So in every list nested in a
// loop's body, what follows a statement that may break or continue runs
// only when neither is pending:
//
//	if go-on; then REST; fi
//
// go-on, an internal command, fails while the runner has a break or
// continue to finish (the kernel reads it from the runner). The if has
// REST's status, or 0, break's, when REST is skipped; set -e and the ERR trap leave an if's
// condition alone. REST's first command would see go-on's $?, 0, rather
// than the status of the statement before it; when it is a simple
// command that reads $?, the condition keeps that status first, in
// arithmetic, which neither set -x nor the ERR trap sees,
//
//	if (( SHELTER_GUARD_STATUS = $?, 1 )) && go-on; then REST; fi
//
// and the command reads the variable instead (declare -f shows $?). The
// right side of `X && Y` whose X may break is guarded the same way (after
// a break, X's status is 0; the right side of || never runs then). The
// body's own list needs no guard: the loop checks between its statements.
// REST is moved under the guard, not copied: the tree grows by one if per
// guard.
//
// A statement may break when it holds a break or continue that no loop
// inside it takes: a plain one, or, inside a loop of its own, one whose
// count is not a number or is more than the loops around it there. The
// lists of functions, subshells, pipeline stages and substitutions are
// not guarded, nor what follows a break in an if's condition or a case
// item that falls through (;&), nor a break that eval or a computed name
// runs (docs/embedding.md, "Known gaps").
//
// The guards go in last, once the other rewrites are done.

// guardLoopExits guards, in file, the lists of every loop's body.
func guardLoopExits(file *syntax.File) {
	shast.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ForClause:
			guardBody(n.Do)
		case *syntax.WhileClause:
			guardBody(n.Do)
		}
		return true
	})
}

// guardBody guards the lists nested in a loop's body; the loop itself
// checks between the body's statements.
func guardBody(stmts []*syntax.Stmt) {
	for _, st := range stmts {
		guardStmt(st)
	}
}

// guardList guards a list nested in a loop's body: what follows its first
// statement that may break runs under go-on.
func guardList(list *[]*syntax.Stmt) {
	stmts := *list
	for i, st := range stmts {
		guardStmt(st)
		if i == len(stmts)-1 || !mayExitLoop(st, 0) {
			continue
		}
		if _, ok := ExitGuarded(stmts[i+1]); ok && i+1 == len(stmts)-1 {
			return // guarded already: the walk meets a list twice when two loops share it
		}
		rest := slices.Clone(stmts[i+1:])
		guardList(&rest)
		*list = append(stmts[:i+1:i+1], exitGuard(rest))
		return
	}
}

// guardStmt guards the lists of st's command that run in the loop's
// shell: not those of inner loops (the walk meets those), functions,
// subshells or pipeline stages.
func guardStmt(st *syntax.Stmt) {
	switch c := st.Cmd.(type) {
	case *syntax.Block:
		guardList(&c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			guardList(&c.Cond)
			guardList(&c.Then)
		}
	case *syntax.CaseClause:
		for _, item := range c.Items {
			guardList(&item.Stmts)
		}
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt && c.Op != syntax.OrStmt {
			return
		}
		guardStmt(c.X)
		guardStmt(c.Y)
		if _, ok := ExitGuarded(c.Y); !ok && c.Op == syntax.AndStmt && mayExitLoop(c.X, 0) {
			c.Y = exitGuard([]*syntax.Stmt{c.Y})
		}
	case *syntax.TimeClause:
		if c.Stmt != nil {
			guardStmt(c.Stmt)
		}
	}
}

// exitGuard is `if go-on; then STMTS; fi`, keeping $? for the first of
// STMTS when it reads it.
func exitGuard(stmts []*syntax.Stmt) *syntax.Stmt {
	at := stmts[0].Position
	goOn := shast.CallStmt(at, shast.LitWord(shast.CmdGoOn))
	cond := goOn
	if readsStatus(stmts[0]) {
		keep := &syntax.BinaryArithm{Op: syntax.Comma, X: &syntax.BinaryArithm{Op: syntax.Assgn, X: shast.LitWord(GuardStatusVar), Y: statusParam()}, Y: shast.LitWord("1")}
		cond = &syntax.Stmt{Position: at, Cmd: &syntax.BinaryCmd{
			Op: syntax.AndStmt,
			X:  &syntax.Stmt{Position: at, Cmd: &syntax.ArithmCmd{Left: at, Right: at, X: keep}},
			Y:  goOn,
		}}
	}
	return &syntax.Stmt{Position: at, Cmd: &syntax.IfClause{Position: at, Cond: []*syntax.Stmt{cond}, Then: stmts}}
}

// GuardStatusVar keeps $? for the command a guard runs first.
const GuardStatusVar = "SHELTER_GUARD_STATUS"

// readsStatus turns the $? of st, when st is a simple command, into
// GuardStatusVar, and reports whether it found one. The words of a
// command substitution are left: their $? is the substitution's own once
// its first command ran.
func readsStatus(st *syntax.Stmt) bool {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return false
	}
	found := false
	shast.Walk(call, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.ParamExp:
			if n.Param != nil && n.Param.Value == "?" {
				n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, Value: GuardStatusVar}
				n.Short = false
				found = true
			}
		}
		return true
	})
	return found
}

// ExitGuarded is the statements a guard runs, when st is one.
func ExitGuarded(st *syntax.Stmt) ([]*syntax.Stmt, bool) {
	c, ok := st.Cmd.(*syntax.IfClause)
	if !ok || c.Else != nil || len(c.Cond) != 1 {
		return nil, false
	}
	cond := c.Cond[0]
	if b, ok := cond.Cmd.(*syntax.BinaryCmd); ok && b.Op == syntax.AndStmt {
		if _, ok := b.X.Cmd.(*syntax.ArithmCmd); ok {
			cond = b.Y
		}
	}
	call, ok := cond.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || call.Args[0].Lit() != shast.CmdGoOn {
		return nil, false
	}
	return c.Then, true
}

// mayExitLoop reports whether running st may leave a break or continue
// pending for the loops around it; loops is how many loops inside st
// surround it.
func mayExitLoop(st *syntax.Stmt, loops int) bool {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return exitsLoops(c, loops)
	case *syntax.Block:
		return anyMayExit(c.Stmts, loops)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			if anyMayExit(c.Cond, loops) || anyMayExit(c.Then, loops) {
				return true
			}
		}
	case *syntax.CaseClause:
		for _, item := range c.Items {
			if anyMayExit(item.Stmts, loops) {
				return true
			}
		}
	case *syntax.BinaryCmd:
		if c.Op == syntax.AndStmt || c.Op == syntax.OrStmt {
			return mayExitLoop(c.X, loops) || mayExitLoop(c.Y, loops)
		}
	case *syntax.TimeClause:
		return c.Stmt != nil && mayExitLoop(c.Stmt, loops)
	case *syntax.ForClause:
		return anyMayExit(c.Do, loops+1)
	case *syntax.WhileClause:
		return anyMayExit(c.Cond, loops+1) || anyMayExit(c.Do, loops+1)
	}
	return false
}

func anyMayExit(stmts []*syntax.Stmt, loops int) bool {
	return slices.ContainsFunc(stmts, func(st *syntax.Stmt) bool { return mayExitLoop(st, loops) })
}

// exitsLoops reports whether c is a break or continue (or `builtin` or
// `command` of one) that may leave more than loops loops.
func exitsLoops(c *syntax.CallExpr, loops int) bool {
	args := c.Args
	if len(args) == 0 {
		return false
	}
	name := args[0].Lit()
	if (name == "builtin" || name == "command") && len(args) > 1 {
		args = args[1:]
		name = args[0].Lit()
	}
	if name != "break" && name != "continue" {
		return false
	}
	if loops == 0 {
		return true
	}
	if len(args) == 1 {
		return false
	}
	n, err := strconv.Atoi(args[1].Lit())
	return err != nil || n > loops
}
