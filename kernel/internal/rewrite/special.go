package rewrite

import (
	"slices"
	"strconv"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// Special parameters mvdan/sh expands otherwise than bash
// (docs/mvdan.md, "Special parameters"):
//
//   - $- holds only the flags of mvdan/sh's options, in another order,
//     without bash's h, B and c: it becomes a command substitution of the
//     internal flags command, which prints $- as bash has it from the
//     options of the shell that expands it;
//   - ${10} and beyond expand to nothing: each becomes ${*:N:1}, the one
//     parameter as one word;
//   - RANDOM=N seeds a generator other than bash's: the statement is
//     followed by the internal reseed command (reseedRandom).

// flagsSubst is the command substitution that stands for $-.
func flagsSubst(pe *syntax.ParamExp) *syntax.CmdSubst {
	return &syntax.CmdSubst{Left: pe.Pos(), Right: pe.End(),
		Stmts: []*syntax.Stmt{shast.CallStmt(pe.Pos(), shast.LitWord(shast.CmdFlags))}}
}

// plainFlags reports whether pe is $- or ${-}, with no operator.
func plainFlags(pe *syntax.ParamExp) bool {
	return pe.Param != nil && pe.Param.Value == "-" && plain(pe)
}

func plain(pe *syntax.ParamExp) bool {
	return !pe.Excl && !pe.Length && !pe.Width && !pe.IsSet && pe.Index == nil && pe.Slice == nil &&
		pe.Repl == nil && pe.Names == 0 && pe.Exp == nil
}

// rewriteFlagsParts replaces each $- among parts.
func rewriteFlagsParts(parts []syntax.WordPart) {
	for i, part := range parts {
		if pe, ok := part.(*syntax.ParamExp); ok && plainFlags(pe) {
			parts[i] = flagsSubst(pe)
		}
	}
}

// positionalBeyondNine is N of ${N}, N past 9 and with no operator; ok is
// false for any other expansion.
func positionalBeyondNine(pe *syntax.ParamExp) (n int, ok bool) {
	if pe.Short || pe.Param == nil || !plain(pe) {
		return 0, false
	}
	n, err := strconv.Atoi(pe.Param.Value)
	return n, err == nil && n > 9
}

// rewritePositional turns ${N}, N past 9, into ${*:N:1}.
func rewritePositional(pe *syntax.ParamExp) {
	n, ok := positionalBeyondNine(pe)
	if !ok {
		return
	}
	pos := pe.Param.ValuePos
	pe.Param = &syntax.Lit{ValuePos: pos, ValueEnd: pe.Param.ValueEnd, Value: "*"}
	pe.Slice = &syntax.Slice{Offset: shast.LitWord(strconv.Itoa(n)), Length: shast.LitWord("1")}
}

// seedsRandom reports whether as assigns RANDOM whole.
func seedsRandom(as *syntax.Assign) bool {
	return as.Name != nil && as.Name.Value == "RANDOM" && as.Index == nil && !as.Append && !as.Naked && as.Array == nil
}

// reseedRandom follows a statement that seeds RANDOM (RANDOM=N, no
// command) with the internal reseed command, which makes the numbers
// that follow bash's sequence for N: mvdan/sh seeds a generator of its
// own. The statement keeps its status. It returns the statement that now
// makes the assignment, which is not to be followed again; nil when st
// seeds nothing.
func reseedRandom(st *syntax.Stmt) *syntax.Stmt {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) > 0 || !slices.ContainsFunc(call.Assigns, seedsRandom) {
		return nil
	}
	assign := &syntax.Stmt{Position: st.Pos(), Cmd: call}
	st.Cmd = &syntax.Block{Lbrace: st.Pos(), Stmts: []*syntax.Stmt{assign, keeping(shast.CallStmt(syntax.Pos{}, shast.LitWord(shast.CmdReseed)))}}
	return assign
}

// readsSubshellVars reports whether pe reads BASHPID or BASH_SUBSHELL,
// which a script that does gets for each subshell (markSubshells), or
// one of the clock's variables (SECONDS, EPOCHSECONDS, EPOCHREALTIME),
// which a subshell that runs in the background would lose without it.
func readsSubshellVars(pe *syntax.ParamExp) bool {
	if pe.Param == nil {
		return false
	}
	switch pe.Param.Value {
	case "BASHPID", "BASH_SUBSHELL", "SECONDS", "EPOCHSECONDS", "EPOCHREALTIME":
		return true
	}
	return false
}

// appendsToFirst reports whether as is name+=value, which mvdan/sh runs
// on an indexed array by appending to its first element in place, in the
// list the array shares with the shell a subshell was made from: the
// subshell's append would change the parent's array (and race with it in
// the background). A script that has one has its subshells marked, and
// the subshell command gives each its own copy of the arrays.
func appendsToFirst(as *syntax.Assign) bool {
	return as.Append && as.Name != nil && as.Index == nil && as.Array == nil && as.Value != nil
}

// markSubshells starts each subshell of file with the internal subshell
// command, which gives it a BASHPID of its own and BASH_SUBSHELL one
// deeper, and the session's clock to a subshell mvdan/sh runs in the
// background (a copy of the variables, without those the session
// answers as they are read): ( ), $( ), <( ), a nested `cmd &` and each
// command of a pipeline but the last, which mvdan/sh runs in the shell
// itself.
func markSubshells(file *syntax.File, copyArrays bool) {
	enter := func() *syntax.Stmt {
		words := []*syntax.Word{shast.LitWord(shast.CmdSubshell)}
		if copyArrays {
			words = append(words, shast.LitWord(shast.SubshellArrays))
		}
		return keeping(shast.CallStmt(syntax.Pos{}, words...))
	}
	marked := map[*syntax.Stmt]bool{}
	mark := func(st *syntax.Stmt) {
		inner := &syntax.Stmt{Position: st.Pos(), Cmd: st.Cmd, Redirs: st.Redirs}
		st.Cmd, st.Redirs = &syntax.Block{Lbrace: st.Pos(), Stmts: []*syntax.Stmt{enter(), inner}}, nil
		marked[inner] = true
	}
	shast.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Subshell:
			n.Stmts = append([]*syntax.Stmt{enter()}, n.Stmts...)
		case *syntax.CmdSubst:
			n.Stmts = append([]*syntax.Stmt{enter()}, n.Stmts...)
		case *syntax.ProcSubst:
			n.Stmts = append([]*syntax.Stmt{enter()}, n.Stmts...)
		case *syntax.Stmt:
			if n.Background && !marked[n] {
				mark(n)
			}
		case *syntax.BinaryCmd:
			if n.Op != syntax.Pipe && n.Op != syntax.PipeAll {
				break
			}
			// A pipeline's first commands run in a subshell: n.X, or
			// the last of n.X when it is a pipeline itself, whose own
			// first commands this walk meets next.
			x := n.X
			if xb, pipe := pipeline(x); pipe {
				x = xb.Y
			}
			if !marked[x] {
				mark(x)
			}
		}
		return true
	})
}
