package rewrite

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// mvdan/sh ends a for (( )) loop after any iteration whose body ends with
// a non-zero status, so `for ((i=0; i<3; i++)); do [[ $i == 1 ]] && echo
// one; done` runs its body once. In bash the loop runs until its
// condition fails, and its status is that of the last command it ran (0
// when none ran, or after break and continue).
//
// The rewrite keeps bash's meaning with arithmetic, which the interpreter
// evaluates without a command (no call handler, nothing for set -x to
// print). With V for LoopStatusVar, a loop whose condition has no side
// effects (pureArithm) runs first as it is, until the condition fails or
// an iteration fails:
//
//	{
//		! for ((V && (V = 0), INIT; COND || ((10#$? && (V = $?)), 0); POST)); do
//			BODY
//		done
//		(( $? ? !(V && (V = 0)) : 10#${V-0} > 0 )) ||
//			for ((; COND; POST)); do BODY; NOTE; done
//	}
//	[[ ! -v V ]] || { loop-end && ((1)); }
//
// The first loop costs nothing per iteration: its condition keeps the
// last body's status in V when it fails, once. When the loop failed
// (`!` turns its status to 0, and keeps set -e from ending the shell for
// it) with nothing kept, mvdan/sh stopped it after a failed iteration
// whose condition held: the second loop goes on from there, the condition
// evaluated again (hence no side effects) and each body followed by the
// note. A loop whose condition has side effects is only the second kind,
// with its INIT and the reset. The group has the second statement's
// status, which is 0 too when a break or continue of an enclosing loop
// (break 2) leaves the first loop, as in bash, and not the 1 the `!`
// makes of it. The note,
//
//	(( !(10#${V-}$?) || ($? ? (V = $?) : !(V = 0)) ))
//
// keeps a failed body's status in V, and sets V back to 0 when a body
// succeeds after one failed; its own status is 0 either way, so the loop
// goes on. A body that succeeds while nothing is noted costs one word,
// 10#${V-}$?, which is 0 then: the interpreter expands each word of
// arithmetic on its own (a lookup of IFS, at least), and reads a bare name
// that is unset, or a 0, as a number that fails to parse, an error it
// allocates; the word is spelt so that the common case does neither.
//
// loop-end answers V's status and unsets V; break, continue and return
// unset it too (the kernel's containLoop), as their own status is 0 or their own.
// INIT's reset forgets a status left when exit skipped a loop's end. V is
// an ordinary variable of the shell, so a subshell or a pipeline stage has
// its own; it is set only from a failed iteration to the loop's end, and
// declare -p does not show it. Both loops run the same statements of the
// body (the second loop's list is made once the walk rewrote the first's,
// see finish).
//
// `loop-end && ((1))` has loop-end's status, but set -e does not end the
// shell for it: the loop's status comes from a body whose last command
// set -e let fail (an && list, say), and bash goes on then too.
//
// A loop in a list of statements is followed there by what the rewrite
// adds; one that stands alone (a pipeline stage, an operand of && or ||,
// `!`, `&`) or has redirections (done once, for both loops) becomes a
// group of them, where mvdan/sh's set -e does end the shell on the
// group's status. One difference stays: once an iteration failed, $? at
// the start of the next body is 1 (the second loop's start), then 0 (the
// note's), where bash has the previous iteration's status; before that
// it is the previous iteration's 0, as in bash.
const LoopStatusVar = "SHELTER_LOOP_STATUS"

// loopRewrite rewrites the loops. A rewritten loop is known by the reset
// in its INIT, or by the note its body ends with.
type loopRewrite struct {
	// slow are the second loops of the rewrite, whose bodies finish
	// fills in.
	slow []slowLoop
}

type slowLoop struct {
	fast, slow *syntax.ForClause
	cond, post syntax.ArithmExpr
}

// list rewrites the loops of a list of statements in place.
func (lr *loopRewrite) list(stmts *[]*syntax.Stmt) {
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
			out = append(make([]*syntax.Stmt, 0, len(*stmts)+2), (*stmts)[:i]...)
		}
		if len(st.Redirs) > 0 {
			// The redirections are done once, for the group.
			lr.alone(st)
			out = append(out, st)
			continue
		}
		out = append(out, lr.rewrite(st, fc)...)
	}
	if out != nil {
		*stmts = out
	}
}

// alone rewrites a loop that no list took: st becomes a group.
func (lr *loopRewrite) alone(st *syntax.Stmt) {
	if fc := lr.loop(st); fc != nil {
		st.Cmd = &syntax.Block{Lbrace: st.Position, Rbrace: fc.DonePos, Stmts: lr.rewrite(&syntax.Stmt{Position: st.Position, Cmd: fc}, fc)}
	}
}

// loop is st's for (( )) loop when it is not rewritten yet.
func (loopRewrite) loop(st *syntax.Stmt) *syntax.ForClause {
	fc, ok := st.Cmd.(*syntax.ForClause)
	if !ok {
		return nil
	}
	cl, ok := fc.Loop.(*syntax.CStyleLoop)
	if !ok || hasLoopReset(cl) {
		return nil
	}
	if n := len(fc.Do); n > 0 && isLoopNote(fc.Do[n-1]) {
		return nil // rewritten already
	}
	return fc
}

// rewrite returns the statements that replace st, the statement of loop
// fc, which has no redirections.
func (lr *loopRewrite) rewrite(st *syntax.Stmt, fc *syntax.ForClause) []*syntax.Stmt {
	at := fc.DonePos
	cl := fc.Loop.(*syntax.CStyleLoop)
	if cl.Init == nil {
		cl.Init = loopReset()
	} else {
		cl.Init = &syntax.BinaryArithm{OpPos: cl.Init.Pos(), Op: syntax.Comma, X: loopReset(), Y: cl.Init}
	}
	end := loopEnd(at)
	if !pureArithm(cl.Cond) {
		fc.Do = append(fc.Do, loopNote(at))
		return []*syntax.Stmt{st, end}
	}
	cond, post := cl.Cond, cl.Post
	if cond != nil {
		// COND || ((10#$? && (V = $?)), 0)
		keep := &syntax.BinaryArithm{Op: syntax.AndArit, X: &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "10#"}, statusParam().Parts[0]}}, Y: paren(assignArith(statusParam()))}
		cl.Cond = &syntax.BinaryArithm{OpPos: cond.Pos(), Op: syntax.OrArit, X: cond, Y: paren(&syntax.BinaryArithm{Op: syntax.Comma, X: paren(keep), Y: shast.LitWord("0")})}
	}
	st.Negated = true
	// The body is the note alone until finish: the walk knows the loop
	// as rewritten, and meets the body's statements only in the first.
	slow := &syntax.ForClause{ForPos: fc.ForPos, DoPos: fc.DoPos, DonePos: fc.DonePos, Loop: &syntax.CStyleLoop{}, Do: []*syntax.Stmt{loopNote(at)}}
	lr.slow = append(lr.slow, slowLoop{fast: fc, slow: slow, cond: cond, post: post})
	// (( $? ? !(V && (V = 0)) : 10#${V-0} > 0 ))
	kept := &syntax.Word{Parts: []syntax.WordPart{
		&syntax.Lit{Value: "10#"},
		&syntax.ParamExp{Param: &syntax.Lit{Value: LoopStatusVar}, Exp: &syntax.Expansion{Op: syntax.DefaultUnset, Word: shast.LitWord("0")}},
	}}
	done := &syntax.BinaryArithm{Op: syntax.TernQuest, X: statusParam(), Y: &syntax.BinaryArithm{
		Op: syntax.TernColon,
		X:  &syntax.UnaryArithm{Op: syntax.Not, X: paren(loopReset())},
		Y:  &syntax.BinaryArithm{Op: syntax.Gtr, X: kept, Y: shast.LitWord("0")},
	}}
	resume := &syntax.Stmt{Position: at, Cmd: &syntax.BinaryCmd{
		Op: syntax.OrStmt,
		X:  &syntax.Stmt{Position: at, Cmd: &syntax.ArithmCmd{Left: at, Right: at, X: done}},
		Y:  &syntax.Stmt{Position: at, Cmd: slow},
	}}
	// The group ends with status 0 when a break or continue of an
	// enclosing loop (break 2) leaves the first loop: the `!` would turn
	// that 0 into the 1 the enclosing loop ended with. resume, which sees
	// that 1, starts nothing and has status 0 (or the guard of what
	// follows a break skips it, with status 0: guardLoopExits).
	group := &syntax.Stmt{Position: st.Position, Cmd: &syntax.Block{Lbrace: st.Position, Rbrace: at, Stmts: []*syntax.Stmt{st, resume}}}
	return []*syntax.Stmt{group, end}
}

// finish gives the second loops their condition, their POST and their
// bodies: the first loops' statements, which the walk has rewritten now,
// and the note.
func (lr *loopRewrite) finish() {
	for _, l := range lr.slow {
		l.slow.Loop = &syntax.CStyleLoop{Cond: l.cond, Post: l.post}
		l.slow.Do = append(slices.Clone(l.fast.Do), l.slow.Do...)
	}
	lr.slow = nil
}

// loopNote is the note at the end of a body:
// (( !(10#${V-}$?) || ($? ? (V = $?) : !(V = 0)) )).
func loopNote(at syntax.Pos) *syntax.Stmt {
	noted := &syntax.Word{Parts: []syntax.WordPart{
		&syntax.Lit{Value: "10#"},
		&syntax.ParamExp{Param: &syntax.Lit{Value: LoopStatusVar}, Exp: &syntax.Expansion{Op: syntax.DefaultUnset}},
		statusParam().Parts[0],
	}}
	note := &syntax.BinaryArithm{
		Op: syntax.OrArit,
		X:  &syntax.UnaryArithm{Op: syntax.Not, X: paren(noted)},
		Y: paren(&syntax.BinaryArithm{Op: syntax.TernQuest, X: statusParam(), Y: &syntax.BinaryArithm{
			Op: syntax.TernColon,
			X:  paren(assignArith(statusParam())),
			Y:  &syntax.UnaryArithm{Op: syntax.Not, X: paren(assignArith(shast.LitWord("0")))},
		}}),
	}
	return &syntax.Stmt{Position: at, Cmd: &syntax.ArithmCmd{Left: at, Right: at, X: note}}
}

// loopEnd is `[[ ! -v V ]] || { loop-end && ((1)); }`.
func loopEnd(at syntax.Pos) *syntax.Stmt {
	unset := &syntax.TestClause{Left: at, Right: at, X: &syntax.UnaryTest{Op: syntax.TsNot, X: &syntax.UnaryTest{Op: syntax.TsVarSet, X: shast.LitWord(LoopStatusVar)}}}
	end := &syntax.BinaryCmd{Op: syntax.AndStmt, X: shast.CallStmt(at, shast.LitWord(shast.CmdLoopEnd)), Y: &syntax.Stmt{Position: at, Cmd: &syntax.ArithmCmd{Left: at, Right: at, X: shast.LitWord("1")}}}
	return &syntax.Stmt{Position: at, Cmd: &syntax.BinaryCmd{
		Op: syntax.OrStmt,
		X:  &syntax.Stmt{Position: at, Cmd: unset},
		Y:  &syntax.Stmt{Position: at, Cmd: end},
	}}
}

// loopReset is `V && (V = 0)`: V is 0 after it, and set only if it was.
func loopReset() *syntax.BinaryArithm {
	return &syntax.BinaryArithm{Op: syntax.AndArit, X: shast.LitWord(LoopStatusVar), Y: paren(assignArith(shast.LitWord("0")))}
}

// assignArith is `V = x`.
func assignArith(x syntax.ArithmExpr) *syntax.BinaryArithm {
	return &syntax.BinaryArithm{Op: syntax.Assgn, X: shast.LitWord(LoopStatusVar), Y: x}
}

func paren(x syntax.ArithmExpr) *syntax.ParenArithm {
	return &syntax.ParenArithm{X: x}
}

// statusParam is the word $?, with no position: no script wrote it.
func statusParam() *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{Short: true, Param: &syntax.Lit{Value: "?"}}}}
}

// pureArithm reports whether evaluating x twice gives the same value
// and changes nothing: no assignment, ++ or --, no command substitution,
// no variable that changes on its own ($RANDOM, $SECONDS, $?, …). nil is
// pure.
func pureArithm(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.Word:
		return pureWord(x)
	case *syntax.ParenArithm:
		return pureArithm(x.X)
	case *syntax.UnaryArithm:
		return x.Op != syntax.Inc && x.Op != syntax.Dec && pureArithm(x.X)
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
			syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn,
			syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
			return false
		}
		return pureArithm(x.X) && pureArithm(x.Y)
	}
	return false
}

func pureWord(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if changingVar(p.Value) {
				return false
			}
		case *syntax.ParamExp:
			if p.Param == nil || !syntax.ValidName(p.Param.Value) || changingVar(p.Param.Value) ||
				p.Excl || p.NestedParam != nil || p.Exp != nil || p.Slice != nil || p.Repl != nil || len(p.Modifiers) > 0 {
				return false
			}
			if p.Index != nil && !pureArithm(p.Index) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// changingVar reports a variable whose value may change between two
// reads with nothing assigned in between.
func changingVar(name string) bool {
	switch name {
	case "RANDOM", "SRANDOM", "SECONDS", "EPOCHREALTIME", "EPOCHSECONDS", "BASHPID", "LINENO", "BASH_COMMAND":
		return true
	}
	return strings.HasPrefix(name, "SHELTER_")
}

// isLoopNote reports whether st is the note a rewritten loop's body ends
// with.
func isLoopNote(st *syntax.Stmt) bool {
	ac, ok := st.Cmd.(*syntax.ArithmCmd)
	if !ok {
		return false
	}
	b, ok := ac.X.(*syntax.BinaryArithm)
	if !ok || b.Op != syntax.OrArit {
		return false
	}
	p, ok := b.Y.(*syntax.ParenArithm)
	if !ok {
		return false
	}
	t, ok := p.X.(*syntax.BinaryArithm)
	if !ok || t.Op != syntax.TernQuest {
		return false
	}
	c, ok := t.Y.(*syntax.BinaryArithm)
	if !ok || c.Op != syntax.TernColon {
		return false
	}
	a, ok := c.X.(*syntax.ParenArithm)
	return ok && assignsLoopStatus(a.X)
}

// isLoopEnd reports whether st is the end the rewrite put after a loop.
func isLoopEnd(st *syntax.Stmt) bool {
	b, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || b.Op != syntax.OrStmt {
		return false
	}
	tc, ok := b.X.Cmd.(*syntax.TestClause)
	if !ok {
		return false
	}
	not, ok := tc.X.(*syntax.UnaryTest)
	if !ok || not.Op != syntax.TsNot {
		return false
	}
	set, ok := not.X.(*syntax.UnaryTest)
	return ok && set.Op == syntax.TsVarSet && isLoopStatusWord(set.X)
}

// isLoopStatusWord reports whether n is the word V.
func isLoopStatusWord(n syntax.Node) bool {
	w, ok := n.(*syntax.Word)
	return ok && w.Lit() == LoopStatusVar
}

// assignsLoopStatus reports whether x is `V = …`.
func assignsLoopStatus(x syntax.ArithmExpr) bool {
	b, ok := x.(*syntax.BinaryArithm)
	return ok && b.Op == syntax.Assgn && isLoopStatusWord(b.X)
}

// isLoopReset reports whether x is INIT's reset.
func isLoopReset(x syntax.ArithmExpr) bool {
	b, ok := x.(*syntax.BinaryArithm)
	if !ok || b.Op != syntax.AndArit || !isLoopStatusWord(b.X) {
		return false
	}
	p, ok := b.Y.(*syntax.ParenArithm)
	return ok && assignsLoopStatus(p.X)
}

// hasLoopReset reports whether cl's INIT starts with the reset.
func hasLoopReset(cl *syntax.CStyleLoop) bool {
	if isLoopReset(cl.Init) {
		return true
	}
	b, ok := cl.Init.(*syntax.BinaryArithm)
	return ok && b.Op == syntax.Comma && isLoopReset(b.X)
}

// isLoopKeep reports whether x is the first loop's condition,
// COND || ((10#$? && (V = $?)), 0); cond is COND.
func isLoopKeep(x syntax.ArithmExpr) (cond syntax.ArithmExpr, ok bool) {
	b, ok := x.(*syntax.BinaryArithm)
	if !ok || b.Op != syntax.OrArit {
		return nil, false
	}
	p, ok := b.Y.(*syntax.ParenArithm)
	if !ok {
		return nil, false
	}
	c, ok := p.X.(*syntax.BinaryArithm)
	if !ok || c.Op != syntax.Comma {
		return nil, false
	}
	k, ok := c.X.(*syntax.ParenArithm)
	if !ok {
		return nil, false
	}
	and, ok := k.X.(*syntax.BinaryArithm)
	if !ok || and.Op != syntax.AndArit {
		return nil, false
	}
	a, ok := and.Y.(*syntax.ParenArithm)
	if !ok || !assignsLoopStatus(a.X) {
		return nil, false
	}
	return b.X, true
}

// isLoopResume reports whether st is the statement that starts the
// second loop.
func isLoopResume(st *syntax.Stmt) bool {
	b, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || b.Op != syntax.OrStmt {
		return false
	}
	if _, ok := b.X.Cmd.(*syntax.ArithmCmd); !ok {
		return false
	}
	fc, ok := b.Y.Cmd.(*syntax.ForClause)
	return ok && len(fc.Do) > 0 && isLoopNote(fc.Do[len(fc.Do)-1])
}

// LoopAdded reports whether st is a statement the loop rewrite added.
func LoopAdded(st *syntax.Stmt) bool {
	return isLoopNote(st) || isLoopEnd(st) || isLoopResume(st)
}

// LoopFirst is the first loop of st, when st is the rewrite's group of
// `! FIRST` and the statement that resumes it; nil otherwise.
func LoopFirst(st *syntax.Stmt) *syntax.Stmt {
	b, ok := st.Cmd.(*syntax.Block)
	if !ok || len(b.Stmts) != 2 {
		return nil
	}
	resume := b.Stmts[1]
	if rest, ok := ExitGuarded(resume); ok && len(rest) == 1 {
		resume = rest[0] // a break 2 in the body may leave it
	}
	if !isLoopResume(resume) {
		return nil
	}
	first := b.Stmts[0]
	fc, ok := first.Cmd.(*syntax.ForClause)
	if !ok || !first.Negated {
		return nil
	}
	if cl, ok := fc.Loop.(*syntax.CStyleLoop); !ok || !hasLoopReset(cl) {
		return nil
	}
	return first
}

// LoopAsWritten is fc as the script wrote its (( )) part: without the
// reset in INIT and what the condition keeps. fc itself is left as it
// is.
func LoopAsWritten(fc *syntax.ForClause) *syntax.ForClause {
	cl, ok := fc.Loop.(*syntax.CStyleLoop)
	if !ok || !hasLoopReset(cl) {
		return fc
	}
	cl2 := *cl
	cl2.Init = nil
	if b, ok := cl.Init.(*syntax.BinaryArithm); ok && b.Op == syntax.Comma {
		cl2.Init = b.Y
	}
	if cond, ok := isLoopKeep(cl.Cond); ok {
		cl2.Cond = cond
	}
	fc2 := *fc
	fc2.Loop = &cl2
	return &fc2
}
