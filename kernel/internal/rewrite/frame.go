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
// for the script itself, as bash -c names it): the frame command runs
// first, in the body's own braces where it has them (a block more would
// cost each call's nesting a level of the interpreter's stack), else in
// braces around it. The frame ends with a status command so that it is
// an && list: it keeps the status the function was called with ($?)
// without set -e or the ERR trap seeing it fail.
func Framed(body *syntax.Stmt, name, source string, line uint) *syntax.Stmt {
	frame := shast.CallStmt(syntax.Pos{}, shast.LitWord(shast.CmdFrame), shast.LitWord(name),
		shast.LitWord(source), shast.LitWord(strconv.FormatUint(uint64(line), 10)))
	setup := &syntax.Stmt{Position: body.Pos(), Cmd: &syntax.BinaryCmd{Op: syntax.AndStmt, X: frame, Y: shast.ExitWith(0)}}
	if blk, ok := body.Cmd.(*syntax.Block); ok {
		framed, braces := *body, *blk
		braces.Stmts = append([]*syntax.Stmt{setup}, blk.Stmts...)
		framed.Cmd = &braces
		return &framed
	}
	return &syntax.Stmt{Position: body.Pos(), Cmd: &syntax.Block{Lbrace: body.Pos(), Stmts: []*syntax.Stmt{setup, body}}}
}

// Unframed is the body Framed framed (the same statement, or one like
// it), the source it was defined in and the line it was last called
// from; ok is false when body is not framed.
func Unframed(body *syntax.Stmt) (orig *syntax.Stmt, source string, line uint, ok bool) {
	blk, isBlock := body.Cmd.(*syntax.Block)
	if !isBlock || len(blk.Stmts) == 0 {
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
	source = call.Args[2].Lit()
	if !blk.Rbrace.IsValid() {
		// Braces of Framed's own, which no parsed block lacks.
		return blk.Stmts[1], source, uint(n), true
	}
	unframed, braces := *body, *blk
	braces.Stmts = blk.Stmts[1:]
	unframed.Cmd = &braces
	return &unframed, source, uint(n), true
}
