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
// The rewrite keeps bash's meaning with arithmetic, which the interpreter
// evaluates without a command (no call handler, nothing for set -x to
// print); only a loop whose last iteration failed runs a command more, at
// its end. With V for loopStatusVar:
//
//	for ((V && (V = 0), INIT; COND; POST)); do
//		BODY
//		(( !(10#${V-}$?) || ($? ? (V = $?) : !(V = 0)) ))
//	done
//	[[ ! -v V ]] || { loop-end && ((1)); }
//
// The note at the end of the body keeps a failed body's status in V, and
// sets V back to 0 when a body succeeds after one failed; its own status
// is 0 either way, so the loop goes on. A body that succeeds while nothing
// is noted costs one word, 10#${V-}$?, which is 0 then: the interpreter
// expands each word of arithmetic on its own (a lookup of IFS, at least),
// and reads a bare name that is unset, or a 0, as a number that fails to
// parse, an error it allocates; the word is spelt so that the common case
// does neither. loop-end answers V's status and unsets V; break and
// continue unset it too (containLoop), as their own status is 0. INIT's
// reset forgets a status that a loop left when return or exit skipped its
// end, so that a loop that runs no iteration has status 0. V is an
// ordinary variable of the shell, so a subshell or a pipeline stage has
// its own; it is set only from a failed iteration to the loop's end, and
// declare -p does not show it.
//
// `loop-end && ((1))` has loop-end's status, but set -e does not end the
// shell for it: the loop's status comes from a body whose last command
// set -e let fail (an && list, say), and bash goes on then too.
//
// A loop in a list of statements gets the end after it in the list; one
// that stands alone (a pipeline stage, an operand of && or ||, `!`, `&`)
// becomes a group of the two, where mvdan/sh's set -e does end the shell
// on that status. One difference stays: from the second iteration on, $?
// at the start of the body is 0 (the note's), where bash has the previous
// iteration's.
const loopStatusVar = "SHELTER_LOOP_STATUS"

// loopRewrite rewrites the loops; it needs no state, as a rewritten loop
// is known by the note its body ends with.
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
	if n := len(fc.Do); n > 0 && isLoopNote(fc.Do[n-1]) {
		return nil // rewritten already
	}
	return fc
}

// rewrite adds the reset to fc's INIT and the note to its body, and
// returns the loop's end.
func (loopRewrite) rewrite(fc *syntax.ForClause) *syntax.Stmt {
	at := fc.DonePos
	cl := fc.Loop.(*syntax.CStyleLoop)
	if cl.Init == nil {
		cl.Init = loopReset()
	} else {
		cl.Init = &syntax.BinaryArithm{OpPos: cl.Init.Pos(), Op: syntax.Comma, X: loopReset(), Y: cl.Init}
	}
	// (( !(10#${V-}$?) || ($? ? (V = $?) : !(V = 0)) ))
	noted := &syntax.Word{Parts: []syntax.WordPart{
		&syntax.Lit{Value: "10#"},
		&syntax.ParamExp{Param: &syntax.Lit{Value: loopStatusVar}, Exp: &syntax.Expansion{Op: syntax.DefaultUnset}},
		statusParam().Parts[0],
	}}
	note := &syntax.BinaryArithm{
		Op: syntax.OrArit,
		X:  &syntax.UnaryArithm{Op: syntax.Not, X: paren(noted)},
		Y: paren(&syntax.BinaryArithm{Op: syntax.TernQuest, X: statusParam(), Y: &syntax.BinaryArithm{
			Op: syntax.TernColon,
			X:  paren(assignArith(statusParam())),
			Y:  &syntax.UnaryArithm{Op: syntax.Not, X: paren(assignArith(litWord("0")))},
		}}),
	}
	fc.Do = append(fc.Do, &syntax.Stmt{Position: at, Cmd: &syntax.ArithmCmd{Left: at, Right: at, X: note}})
	// [[ ! -v V ]] || { loop-end && ((1)); }
	unset := &syntax.TestClause{Left: at, Right: at, X: &syntax.UnaryTest{Op: syntax.TsNot, X: &syntax.UnaryTest{Op: syntax.TsVarSet, X: litWord(loopStatusVar)}}}
	end := &syntax.BinaryCmd{Op: syntax.AndStmt, X: callStmt(at, litWord(internalPrefix+"loop-end")), Y: &syntax.Stmt{Position: at, Cmd: &syntax.ArithmCmd{Left: at, Right: at, X: litWord("1")}}}
	return &syntax.Stmt{Position: at, Cmd: &syntax.BinaryCmd{
		Op: syntax.OrStmt,
		X:  &syntax.Stmt{Position: at, Cmd: unset},
		Y:  &syntax.Stmt{Position: at, Cmd: end},
	}}
}

// loopReset is `V && (V = 0)`: V is 0 after it, and set only if it was.
func loopReset() *syntax.BinaryArithm {
	return &syntax.BinaryArithm{Op: syntax.AndArit, X: litWord(loopStatusVar), Y: paren(assignArith(litWord("0")))}
}

// assignArith is `V = x`.
func assignArith(x syntax.ArithmExpr) *syntax.BinaryArithm {
	return &syntax.BinaryArithm{Op: syntax.Assgn, X: litWord(loopStatusVar), Y: x}
}

func paren(x syntax.ArithmExpr) *syntax.ParenArithm {
	return &syntax.ParenArithm{X: x}
}

// statusParam is the word $?, with no position: no script wrote it.
func statusParam() *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{Short: true, Param: &syntax.Lit{Value: "?"}}}}
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
	if !ok || set.Op != syntax.TsVarSet {
		return false
	}
	w, ok := set.X.(*syntax.Word)
	return ok && w.Lit() == loopStatusVar
}

// assignsLoopStatus reports whether x is `V = …`.
func assignsLoopStatus(x syntax.ArithmExpr) bool {
	b, ok := x.(*syntax.BinaryArithm)
	if !ok || b.Op != syntax.Assgn {
		return false
	}
	w, ok := b.X.(*syntax.Word)
	return ok && w.Lit() == loopStatusVar
}

// isLoopReset reports whether x is INIT's reset.
func isLoopReset(x syntax.ArithmExpr) bool {
	b, ok := x.(*syntax.BinaryArithm)
	if !ok || b.Op != syntax.AndArit {
		return false
	}
	w, ok := b.X.(*syntax.Word)
	if !ok || w.Lit() != loopStatusVar {
		return false
	}
	p, ok := b.Y.(*syntax.ParenArithm)
	return ok && assignsLoopStatus(p.X)
}

// loopAdded reports whether st is a statement the loop rewrite added.
func loopAdded(st *syntax.Stmt) bool {
	return isLoopNote(st) || isLoopEnd(st)
}

// loopAsWritten is fc as the script wrote its (( )) part: without the
// reset in INIT. fc itself is left as it is.
func loopAsWritten(fc *syntax.ForClause) *syntax.ForClause {
	cl, ok := fc.Loop.(*syntax.CStyleLoop)
	if !ok || cl.Init == nil {
		return fc
	}
	init := cl.Init
	switch {
	case isLoopReset(init):
		init = nil
	default:
		b, ok := init.(*syntax.BinaryArithm)
		if !ok || b.Op != syntax.Comma || !isLoopReset(b.X) {
			return fc
		}
		init = b.Y
	}
	cl2 := *cl
	cl2.Init = init
	fc2 := *fc
	fc2.Loop = &cl2
	return &fc2
}

// containLoop answers loop-end, and makes break and continue forget a
// noted status; ok is false for any other command.
func containLoop(env expand.Environ, args []string) (next []string, ok bool) {
	switch args[0] {
	case internalPrefix + "loop-end", "break", "continue":
	default:
		return nil, false
	}
	noted := env.Get(loopStatusVar)
	if !noted.IsSet() {
		if args[0] == internalPrefix+"loop-end" {
			return []string{"builtin", ":"}, true
		}
		return nil, false
	}
	if args[0] == internalPrefix+"loop-end" {
		if n, _ := strconv.Atoi(noted.String()); n != 0 {
			return []string{"eval", "unset " + loopStatusVar + "; " + quoteWord(statusWord) + " " + strconv.Itoa(n)}, true
		}
		return []string{"eval", "unset " + loopStatusVar}, true
	}
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = quoteWord(a)
	}
	return []string{"eval", "unset " + loopStatusVar + "; " + strings.Join(words, " ")}, true
}
