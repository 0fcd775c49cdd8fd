package rewrite

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// An assignment to a readonly variable ends a non-interactive bash (or
// the subshell it runs in) with status 1; mvdan/sh reports it and goes
// on. Each statement that only assigns, to a name the script makes
// readonly somewhere (readonly, declare -r, local -r, typeset -r),
// becomes
//
//	NAME=VALUE || <readonly> "$?" NAME...
//
// and the internal readonly command, answered by the call handler, exits
// with status 1 when one of the names is readonly, or else gives back
// the assignment's own status ($(false) in the value, say).

// readonlyNames is the names st, a declaration clause, makes readonly.
func readonlyNames(st *syntax.Stmt) []string {
	dc, ok := st.Cmd.(*syntax.DeclClause)
	if !ok {
		return nil
	}
	if dc.Variant.Value != "readonly" && !slices.ContainsFunc(dc.Args, func(as *syntax.Assign) bool {
		lit := declFlag(as)
		return lit != "" && lit[0] == '-' && strings.ContainsRune(lit[1:], 'r')
	}) {
		return nil
	}
	var names []string
	for _, as := range dc.Args {
		if as.Name != nil {
			names = append(names, as.Name.Value)
		}
	}
	return names
}

// guardReadonlyAssigns guards, in file, each statement that only assigns
// to one of names.
func guardReadonlyAssigns(file *syntax.File, names []string) {
	shast.Walk(file, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) > 0 {
			return true
		}
		guard := []*syntax.Word{shast.LitWord(shast.CmdReadonly), shast.QuotedParam("?")}
		for _, as := range call.Assigns {
			if as.Name != nil && slices.Contains(names, as.Name.Value) {
				guard = append(guard, shast.LitWord(as.Name.Value))
			}
		}
		if len(guard) == 2 {
			return true
		}
		st.Cmd = &syntax.BinaryCmd{Op: syntax.OrStmt, OpPos: call.Pos(),
			X: &syntax.Stmt{Position: st.Position, Cmd: call},
			Y: shast.CallStmt(call.Pos(), guard...)}
		return false
	})
}

// ReadonlyGuarded is the assignment a readonly guard wraps, when st is
// one.
func ReadonlyGuarded(st *syntax.Stmt) (*syntax.Stmt, bool) {
	b, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || b.Op != syntax.OrStmt {
		return nil, false
	}
	call, ok := b.Y.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != shast.CmdReadonly {
		return nil, false
	}
	orig := *st
	orig.Cmd = b.X.Cmd
	return &orig, true
}
