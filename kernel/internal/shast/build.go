package shast

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// LitWord is the word of the literal s, with no position: no script
// wrote it.
func LitWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

// CallStmt is a statement at pos that runs the words args.
func CallStmt(pos syntax.Pos, args ...*syntax.Word) *syntax.Stmt {
	return &syntax.Stmt{Position: pos, Cmd: &syntax.CallExpr{Args: args}}
}

// QuotedParam is the word "$name" of a special parameter (?, !), with no
// position: no script wrote it.
func QuotedParam(name string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{
		&syntax.ParamExp{Short: true, Param: &syntax.Lit{Value: name}},
	}}}}
}

// ExitWith is the statement that runs the internal status command
// ([CmdStatus]): it sets $? to status.
func ExitWith(status int) *syntax.Stmt {
	return CallStmt(syntax.Pos{}, LitWord(CmdStatus), LitWord(strconv.Itoa(status)))
}
