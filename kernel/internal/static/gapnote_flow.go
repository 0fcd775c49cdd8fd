package static

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

func (c *GapCheck) stmt(s *syntax.Stmt) {
	c.facts.background = c.facts.background || s.Background
	if c.loopEnd.IsValid() && s.Pos().After(c.loopEnd) {
		// The statement after a while loop: does it read the loop's status?
		if readsStatus(s) {
			c.note(s.Pos(), &gapLoopStatus)
		}
		c.loopEnd = syntax.Pos{}
	}
	if s.Negated {
		if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			if c.late && c.facts.errexit && c.facts.funcs[call.Args[0].Lit()] {
				c.note(s.Pos(), &gapErrexitOr)
			}
		}
	}
	if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(call.Args) == 0 && toStdout(s.Redirs) {
		for _, as := range call.Assigns {
			if as.Value != nil && hasPart[*syntax.CmdSubst](as.Value) {
				c.note(s.Pos(), &gapAssignRedir)
			}
		}
	}
}

// toStdout reports whether redirs send stderr to stdout (2>&1).
func toStdout(redirs []*syntax.Redirect) bool {
	for _, r := range redirs {
		if r.Op == syntax.DplOut && r.N != nil && r.N.Value == "2" && r.Word.Lit() == "1" {
			return true
		}
	}
	return false
}

// readsStatus reports whether s reads $? before anything else runs.
func readsStatus(s *syntax.Stmt) bool {
	found := false
	shast.Walk(s, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && p.Param.Value == "?" {
			found = true
		}
		return !found
	})
	return found
}

// mayFail reports whether a loop body's last command is one whose failure
// scripts test: false, a test, arithmetic or a negation.
func mayFail(body []*syntax.Stmt) bool {
	if len(body) == 0 {
		return false
	}
	last := body[len(body)-1]
	if last.Negated {
		return true
	}
	switch cmd := last.Cmd.(type) {
	case *syntax.ArithmCmd, *syntax.TestClause:
		return true
	case *syntax.CallExpr:
		if len(cmd.Args) > 0 {
			switch cmd.Args[0].Lit() {
			case "false", "test", "[":
				return true
			}
		}
	}
	return false
}

func (c *GapCheck) binaryCmd(b *syntax.BinaryCmd) {
	switch b.Op {
	case syntax.AndStmt, syntax.OrStmt:
		switch x := b.X.Cmd.(type) {
		case *syntax.Subshell:
			if len(x.Stmts) > 1 && c.late && c.facts.errexit {
				c.note(b.Pos(), &gapErrexitOr)
			}
		case *syntax.WhileClause:
			c.note(b.Pos(), &gapLoopStatus)
		}
	case syntax.Pipe, syntax.PipeAll:
		if _, pipe := b.Y.Cmd.(*syntax.BinaryCmd); pipe {
			return
		}
		if readsSubshellVars(b.Y) {
			c.note(b.Pos(), &gapBashpid)
		}
		names := assignedIn(b.Y)
		if len(names) > 0 && !c.facts.lastpipe {
			c.lastpipeCheck(b, names)
		}
	}
}

// readsSubshellVars reports whether s reads BASHPID or BASH_SUBSHELL
// outside a subshell of its own.
func readsSubshellVars(s *syntax.Stmt) bool {
	found := false
	shast.Walk(s, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.FuncDecl:
			return false
		case *syntax.ParamExp:
			found = found || n.Param != nil && (n.Param.Value == "BASHPID" || n.Param.Value == "BASH_SUBSHELL")
		}
		return !found
	})
	return found
}

// lastpipeCheck notes a pipeline whose last command sets a variable the
// rest of the script reads.
func (c *GapCheck) lastpipeCheck(b *syntax.BinaryCmd, names map[string]bool) {
	end := b.End()
	shast.Walk(c.file, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && p.Pos().After(end) && names[p.Param.Value] {
			c.note(b.Pos(), &gapLastpipe)
			return false
		}
		return true
	})
}

// assignedIn are the names a command sets: assignments, read's names and
// arithmetic writes.
func assignedIn(s *syntax.Stmt) map[string]bool {
	if _, sub := s.Cmd.(*syntax.Subshell); sub {
		return nil
	}
	names := map[string]bool{}
	shast.Walk(s, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, as := range n.Assigns {
				if as.Name != nil && len(n.Args) == 0 {
					names[as.Name.Value] = true
				}
			}
			for _, name := range callAssigns(n) {
				names[name] = true
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if w, ok := n.X.(*syntax.Word); ok {
					names[w.Lit()] = true
				}
			}
		case *syntax.BinaryArithm:
			if _, ok := shast.ArithAssignOp(n.Op); ok {
				if w, ok := n.X.(*syntax.Word); ok {
					names[w.Lit()] = true
				}
			}
		case *syntax.Subshell, *syntax.CmdSubst:
			return false
		}
		return true
	})
	return names
}

func (c *GapCheck) testClause(t *syntax.TestClause) {
	shast.Walk(t.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			if n.Op == syntax.TsReMatch {
				if w, ok := n.Y.(*syntax.Word); ok {
					for _, part := range w.Parts {
						if d, ok := part.(*syntax.DblQuoted); ok && hasExpansion(d.Parts) {
							c.note(t.Pos(), &gapRegexQuotedVar)
						}
					}
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet {
				if w, ok := n.X.(*syntax.Word); ok {
					if t, ok := shast.LiteralText(w); ok {
						if name, _, sub := strings.Cut(t, "["); sub && c.isAssoc(name) {
							if _, _, ok := shast.ElementOperand(w); !ok {
								c.note(n.Pos(), &gapAssocTestKey)
							}
						}
					}
				}
			}
		}
		return true
	})
	if c.traced() {
		c.note(t.Pos(), &gapXtrace)
	}
}

func (c *GapCheck) arithmCmd(a *syntax.ArithmCmd) {
	if c.traced() {
		c.note(a.Pos(), &gapXtrace)
	}
	shast.Walk(a.X, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if lit := w.Lit(); len(lit) > 1 && lit[0] == '0' && allDigits(lit) && strings.ContainsAny(lit, "89") {
				c.note(a.Pos(), &gapArithOctal)
			}
		}
		return true
	})
}

// arithm notes a divisor with side effects. It goes down the operators
// only: an arithmetic expansion nested in a word is visited on its own.
func (c *GapCheck) arithm(x syntax.ArithmExpr) {
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		if (x.Op == syntax.Quo || x.Op == syntax.Rem) && sideEffects(x.Y) {
			c.note(x.Pos(), &gapArithSideDiv)
		}
		c.arithm(x.X)
		c.arithm(x.Y)
	case *syntax.UnaryArithm:
		c.arithm(x.X)
	case *syntax.ParenArithm:
		c.arithm(x.X)
	}
}

// sideEffects reports whether evaluating x changes something: an
// increment, a decrement, an assignment or a command substitution.
func sideEffects(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		if _, assign := shast.ArithAssignOp(x.Op); assign {
			return true
		}
		return sideEffects(x.X) || sideEffects(x.Y)
	case *syntax.UnaryArithm:
		return x.Op == syntax.Inc || x.Op == syntax.Dec || sideEffects(x.X)
	case *syntax.ParenArithm:
		return sideEffects(x.X)
	case *syntax.Word:
		if len(x.Parts) == 1 {
			if _, ok := x.Parts[0].(*syntax.Lit); ok {
				return false
			}
		}
		return hasCmdSubst(x)
	}
	return false
}

// hasCmdSubst reports whether n holds a command substitution, or
// arithmetic with side effects, at any depth.
func hasCmdSubst(n syntax.Node) bool {
	found := false
	shast.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			found = true
		case *syntax.UnaryArithm:
			found = found || n.Op == syntax.Inc || n.Op == syntax.Dec
		case *syntax.BinaryArithm:
			_, assign := shast.ArithAssignOp(n.Op)
			found = found || assign
		}
		return !found
	})
	return found
}

func (c *GapCheck) forClause(f *syntax.ForClause) {
	switch loop := f.Loop.(type) {
	case *syntax.CStyleLoop:
		if c.traced() {
			c.note(f.Pos(), &gapXtrace)
		}
		if loop.Cond != nil {
			shast.Walk(loop.Cond, func(n syntax.Node) bool {
				if b, ok := n.(*syntax.BinaryArithm); ok && (b.Op == syntax.Quo || b.Op == syntax.Rem) {
					if w, ok := b.Y.(*syntax.Word); ok && w.Lit() == "0" {
						c.note(f.Pos(), &gapArithCondError)
					}
				}
				return true
			})
		}
	case *syntax.WordIter:
		if c.late && c.facts.ifsNonBlank {
			c.unquotedSplit(loop.Items, f.Pos())
		}
		c.extglobSameLine(loop.Items)
	}
}

func (c *GapCheck) ifClause(i *syntax.IfClause) {
	// A failing command that ends a branch ends the if too: the ERR trap
	// runs for both.
	for b := i; b != nil; b = b.Else {
		if len(b.Then) > 0 && mayFail(b.Then) {
			if c.late && c.facts.errTrap {
				c.note(i.Pos(), &gapErrTrap)
			}
		}
	}
}

func (c *GapCheck) funcDecl(f *syntax.FuncDecl) {
	if f.Name != nil {
		if c.facts.funcs == nil {
			c.facts.funcs = make(map[string]bool)
		}
		c.facts.funcs[f.Name.Value] = true
	}
}

func (c *GapCheck) subshell(s *syntax.Subshell) { c.exitTrapIn(s.Stmts, s.Pos()) }

// exitTrapIn notes an EXIT trap set in a subshell's statements.
func (c *GapCheck) exitTrapIn(stmts []*syntax.Stmt, pos syntax.Pos) {
	for _, s := range stmts {
		call, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) < 3 || call.Args[0].Lit() != "trap" || strings.HasPrefix(call.Args[1].Lit(), "-") {
			continue
		}
		for _, sig := range literalArgs(call.Args[2:]) {
			if sig == "EXIT" || sig == "0" {
				c.note(pos, &gapExitTrapSub)
			}
		}
	}
}

func (c *GapCheck) cmdSubst(cs *syntax.CmdSubst) {
	c.exitTrapIn(cs.Stmts, cs.Pos())
	if c.traced() {
		c.note(cs.Pos(), &gapXtrace)
	}
}
