package rewrite

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// A script that reads the call stack (FUNCNAME, BASH_SOURCE, BASH_LINENO,
// caller) has each function's body framed as it is called: the kernel
// puts the body in a block whose first statement, the internal command
// frame, makes the function's entries of those arrays its locals
// (docs/mvdan.md, "Call stack"). mvdan/sh keeps no call stack a handler
// could read, and a function's locals end with it, so each body keeps
// its own frame, in subshells too.

// Framed is body, the function name's, framed for a call from line of
// the script and defined in source (a sourced file, or "environment"
// for the script itself, as bash -c names it). The frame ends with a
// status command so that it is an && list: it keeps the status the
// function was called with ($?) without set -e or the ERR trap seeing
// it fail.
func Framed(body *syntax.Stmt, name, source string, line uint) *syntax.Stmt {
	frame := shast.CallStmt(syntax.Pos{}, shast.LitWord(shast.CmdFrame), shast.LitWord(name),
		shast.LitWord(source), shast.LitWord(strconv.FormatUint(uint64(line), 10)))
	setup := &syntax.Stmt{Position: body.Pos(), Cmd: &syntax.BinaryCmd{Op: syntax.AndStmt, X: frame, Y: shast.ExitWith(0)}}
	return &syntax.Stmt{Position: body.Pos(), Cmd: &syntax.Block{Lbrace: body.Pos(), Stmts: []*syntax.Stmt{setup, body}}}
}

// Unframed is the body Framed framed, the source it was defined in and
// the line it was last called from; ok is false when body is not framed.
func Unframed(body *syntax.Stmt) (orig *syntax.Stmt, source string, line uint, ok bool) {
	blk, isBlock := body.Cmd.(*syntax.Block)
	if !isBlock || len(blk.Stmts) != 2 || len(body.Redirs) > 0 || body.Negated || body.Background {
		return nil, "", 0, false
	}
	and, isAnd := blk.Stmts[0].Cmd.(*syntax.BinaryCmd)
	if !isAnd || and.Op != syntax.AndStmt {
		return nil, "", 0, false
	}
	call, isCall := and.X.Cmd.(*syntax.CallExpr)
	if !isCall || len(call.Args) != 4 || call.Args[0].Lit() != shast.CmdFrame {
		return nil, "", 0, false
	}
	n, _ := strconv.ParseUint(call.Args[3].Lit(), 10, 64)
	return blk.Stmts[1], call.Args[2].Lit(), uint(n), true
}
