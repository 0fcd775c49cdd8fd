package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// SubstErrexit puts shast.CmdSubstStart first in every command
// substitution of file, with "$?" as its argument: bash outside POSIX mode
// runs a $( ) with set -e off unless shopt inherit_errexit is on, where
// mvdan/sh keeps set -e (docs/mvdan.md, "Errexit in substitutions"). The
// kernel applies it only to a script that may run under set -e (one that
// turns it on, or run while it is on), so that other scripts' substitutions
// cost nothing more.
func SubstErrexit(file *syntax.File) {
	shast.Walk(file, func(n syntax.Node) bool {
		cs, ok := n.(*syntax.CmdSubst)
		if !ok || len(cs.Stmts) == 0 || len(cs.Stmts) == 1 && cs.Stmts[0].Cmd == nil {
			return true // nothing runs, or $(< FILE)
		}
		start := shast.CallStmt(cs.Stmts[0].Pos(), shast.LitWord(shast.CmdSubstStart), shast.QuotedParam("?"))
		cs.Stmts = append([]*syntax.Stmt{start}, cs.Stmts...)
		return true
	})
}

// SetsErrexit reports whether the command of the words args may turn set
// -e on: set with -e in its flags or -o errexit, or shopt naming errexit.
func SetsErrexit(args []shast.Word) bool {
	if len(args) < 2 || args[0].Text != "set" && args[0].Text != "shopt" {
		return false
	}
	for _, w := range args[1:] {
		a := w.Text
		if a == "errexit" || args[0].Text == "set" && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'e') > 0 {
			return true
		}
	}
	return false
}
