package kernel

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// mvdan/sh ends a for (( )) loop after any iteration whose body ends with
// a non-zero status, so `for ((i=0; i<3; i++)); do [[ $i == 1 ]] && echo
// one; done` runs its body once. In bash the loop runs until its
// condition fails, and its status is that of the last command it ran (0
// when none ran, or after break and continue).
//
// The rewrite keeps bash's meaning: each such loop is followed by
// loop-end, and its body ends with loop-keep:
//
//	for ((…)); do BODY; loop-keep "$?"; done; loop-end && builtin :
//
// loop-keep notes the body's status in loopStatusVar and answers 0, so the
// loop goes on; loop-end answers the noted status and forgets it. break
// and continue forget it too (containLoop), as their own status is 0. The
// variable is an ordinary one of the shell, so a subshell or a pipeline
// stage has its own, and it is set only while a failed iteration is the
// latest one. `loop-end && builtin :` has loop-end's status, but set -e does not
// end the shell for it: the loop's status comes from a body whose last
// command set -e let fail (an && list, say), and bash goes on then too.
//
// A loop in a list of statements gets loop-end after it in the list; one
// that stands alone (a pipeline stage, an operand of && or ||, `!`, `&`)
// becomes a group of the two, where mvdan/sh's set -e does end the shell
// on that status. One difference stays: from the second iteration on, $?
// at the start of the body is 0 (loop-keep's), where bash has the
// previous iteration's.
const loopStatusVar = "SHELTER_LOOP_STATUS"

// loopRewrite rewrites the loops; it needs no state, as a rewritten loop
// is known by the loop-keep its body ends with.
type loopRewrite struct{}

// list rewrites the loops of a list of statements in place.
func (lr loopRewrite) list(stmts *[]*syntax.Stmt) {
	var out []*syntax.Stmt
	for i, st := range *stmts {
		fc := lr.loop(st)
		if fc == nil || st.Background || st.Negated {
			if out != nil {
				out = append(out, st)
			}
			continue
		}
		if out == nil {
			out = append(make([]*syntax.Stmt, 0, len(*stmts)+1), (*stmts)[:i]...)
		}
		out = append(out, st, lr.rewrite(fc))
	}
	if out != nil {
		*stmts = out
	}
}

// alone rewrites a loop that no list took: st becomes a group.
func (lr loopRewrite) alone(st *syntax.Stmt) {
	if fc := lr.loop(st); fc != nil {
		st.Cmd = &syntax.Block{Lbrace: st.Position, Rbrace: fc.DonePos, Stmts: []*syntax.Stmt{{Position: st.Position, Cmd: fc}, lr.rewrite(fc)}}
	}
}

// loop is st's for (( )) loop when it is not rewritten yet.
func (loopRewrite) loop(st *syntax.Stmt) *syntax.ForClause {
	fc, ok := st.Cmd.(*syntax.ForClause)
	if !ok {
		return nil
	}
	if _, ok := fc.Loop.(*syntax.CStyleLoop); !ok {
		return nil
	}
	if n := len(fc.Do); n > 0 {
		if call, ok := fc.Do[n-1].Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 && call.Args[0].Lit() == internalPrefix+"loop-keep" {
			return nil // rewritten already
		}
	}
	return fc
}

// rewrite appends loop-keep to fc's body and returns its loop-end.
func (loopRewrite) rewrite(fc *syntax.ForClause) *syntax.Stmt {
	at := fc.DonePos
	fc.Do = append(fc.Do, callStmt(at, litWord(internalPrefix+"loop-keep"), quotedParam("?")))
	return &syntax.Stmt{Position: at, Cmd: &syntax.BinaryCmd{
		Op: syntax.AndStmt,
		X:  callStmt(at, litWord(internalPrefix+"loop-end")),
		Y:  callStmt(at, litWord("builtin"), litWord(":")),
	}}
}

// containLoop answers loop-keep and loop-end, and makes break and
// continue forget a noted status; ok is false for any other command.
func containLoop(env expand.Environ, args []string) (next []string, ok bool) {
	switch args[0] {
	case internalPrefix + "loop-keep", internalPrefix + "loop-end", "break", "continue":
	default:
		return nil, false
	}
	noted := env.Get(loopStatusVar)
	switch args[0] {
	case internalPrefix + "loop-keep":
		n, _ := strconv.Atoi(args[1])
		switch {
		case n == 0 && !noted.IsSet(), noted.IsSet() && noted.String() == args[1]:
			return []string{"builtin", ":"}, true // the cheapest status 0
		case n == 0:
			return []string{"eval", "unset " + loopStatusVar}, true
		}
		return []string{"eval", loopStatusVar + "=" + strconv.Itoa(n)}, true
	case internalPrefix + "loop-end":
		if !noted.IsSet() {
			return []string{"builtin", ":"}, true
		}
		n, _ := strconv.Atoi(noted.String())
		return []string{"eval", "unset " + loopStatusVar + "; " + quoteWord(statusWord) + " " + strconv.Itoa(n)}, true
	case "break", "continue":
		if !noted.IsSet() {
			return nil, false
		}
		words := make([]string, len(args))
		for i, a := range args {
			words[i] = quoteWord(a)
		}
		return []string{"eval", "unset " + loopStatusVar + "; " + strings.Join(words, " ")}, true
	}
	return nil, false
}
