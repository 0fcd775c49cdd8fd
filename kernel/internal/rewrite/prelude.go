package rewrite

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// MatchVarPrefix names the variables that a prelude sets for its
// statement: SHELTER_MATCH_0, _1… in the order of the script.
const MatchVarPrefix = "SHELTER_MATCH_"

// A prelude is what runs before a statement's command to compute, as bash
// would, what mvdan/sh would compute otherwise: internal commands (cmd),
// each setting a variable that the command reads instead. The prelude
// and the command run in a { } block that takes the command's place, so
// that the statement's redirections, negation, && and || and background
// stay whole; in a loop's condition it runs at each test.
type prelude struct {
	st    *syntax.Stmt
	cmd   string // the internal command
	next  *int   // the number of the next variable
	stmts []*syntax.Stmt
}

// add puts `cmd "$?" VAR args...` in the prelude and gives VAR.
func (p *prelude) add(args ...*syntax.Word) string {
	name := MatchVarPrefix + strconv.Itoa(*p.next)
	*p.next++
	words := append([]*syntax.Word{shast.LitWord(p.cmd), shast.QuotedParam("?"), shast.LitWord(name)}, args...)
	p.stmts = append(p.stmts, shast.CallStmt(p.st.Pos(), words...))
	return name
}

// finish puts the prelude before the statement's command.
func (p *prelude) finish() {
	if p.stmts == nil {
		return
	}
	inner := &syntax.Stmt{Position: p.st.Position, Cmd: p.st.Cmd}
	p.st.Cmd = &syntax.Block{Lbrace: p.st.Position, Rbrace: p.st.Position, Stmts: append(p.stmts, inner)}
}
