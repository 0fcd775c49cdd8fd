package rewrite

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// Script rewrites the constructs that mvdan/sh runs differently
// from bash into ones it runs as bash does (docs/embedding.md, "Bash
// compatibility"), and the expansions shelter answers itself
// (rewriteExpansion): all in one walk of file, then, in walks of their
// own, the subshells and pipelines of a script that reads BASHPID,
// BASH_SUBSHELL or the clock (markSubshells) or PIPESTATUS (notePipelines), and the
// guards of what follows a break in a loop's body (guardLoopExits).
// Each rewrite keeps bash's meaning for every input it touches and leaves
// alone what it cannot prove.
//
// With answered, every subshell is marked, as for a script that reads
// BASHPID: the session answers some variables as they are read
// (Hints.Answered), which a subshell run in the background would lose.
func Script(file *syntax.File, answered bool) {
	var loops loopRewrite
	attrs := false
	var readonly []string // the names the script makes readonly
	var matchVars int     // the prelude variables' numbers
	pipestatus, subshells, appends := false, false, false
	var seeds map[*syntax.Stmt]bool // the statements reseedRandom and glueWords rewrote
	var arrays arrayRewrite
	var indirect indirections
	// nested rewrites a list below the top level: its loops, and its
	// backgrounds for kill (markBackgrounds).
	nested := func(stmts *[]*syntax.Stmt) {
		loops.list(stmts)
		markBackgrounds(stmts)
	}
	// Each node kind goes to the rewrites that act on it, in the order
	// they apply: the expansion's, the arithmetic guard, then the rest.
	shast.Walk(file, func(n syntax.Node) bool {
		indirect.track(n)
		switch n := n.(type) {
		case *syntax.File:
			loops.list(&n.Stmts)
		case *syntax.Block:
			nested(&n.Stmts)
		case *syntax.Subshell:
			nested(&n.Stmts)
		case *syntax.IfClause:
			nested(&n.Cond)
			nested(&n.Then)
		case *syntax.WhileClause:
			nested(&n.Cond)
			nested(&n.Do)
		case *syntax.ForClause:
			nested(&n.Do)
		case *syntax.WordIter, *syntax.CallExpr:
			rewriteTildes(n)
		case *syntax.DblQuoted:
			rewriteTildes(n)
			rewriteOptionVars(n.Parts)
			rewriteFlagsParts(n.Parts)
			arrays.note(n)
		case *syntax.Word:
			rewriteOptionVars(n.Parts)
			rewriteFlagsParts(n.Parts)
			arrays.note(n)
			if len(n.Parts) > 0 {
				markProcSubsts(n)
			}
		case *syntax.SglQuoted:
			decodeANSIC(n)
		case *syntax.CaseItem:
			nested(&n.Stmts)
		case *syntax.CmdSubst:
			rewriteExpansion(n)
			nested(&n.Stmts)
		case *syntax.ProcSubst:
			nested(&n.Stmts)
		case *syntax.Stmt:
			if len(n.Redirs) > 0 {
				rewriteRedirs(n)
			}
			refuseCoproc(n)
			loops.alone(n)
			readonly = append(readonly, readonlyNames(n)...)
			splitDeclFlags(n)
			rewriteDeclQuery(n)
			rewriteDeclList(n)
			rewriteDeclPrefix(n)
			rewriteDeclOrder(n)
			rewriteLocalNames(n)
			attrs = attrs || declAttrs(n)
			rewriteLetCall(n)
			extglobStmt(n, &matchVars)
			if !seeds[n] {
				inner := reseedRandom(n)
				if inner == nil {
					inner = glueWords(n)
				}
				if inner != nil {
					if seeds == nil {
						seeds = make(map[*syntax.Stmt]bool)
					}
					seeds[inner] = true
				}
			}
			arrays.note(n)
		case *syntax.DeclClause, *syntax.UnaryTest:
			arrays.note(n)
		case *syntax.ParamExp:
			pipestatus = pipestatus || readsPipestatus(n)
			subshells = subshells || readsSubshellVars(n)
			rewritePositional(n)
			rewriteExpansion(n)
			guardArithmNode(n)
			renameBang(n)
		case *syntax.BinaryTest:
			quoteRegexLiterals(n)
		case *syntax.Assign:
			appends = appends || appendsToFirst(n)
			guardArithmNode(n)
			unescapeAssignValue(n)
			rewriteTildes(n)
			arrays.note(n)
		case *syntax.TestClause:
			n.X = rewriteOptionTests(n.X)
			guardArithmNode(n)
		case *syntax.ArithmExp, *syntax.LetClause:
			guardArithmNode(n)
		}
		return true
	})
	loops.finish()
	if attrs {
		rewriteDeclAttrs(file)
	}
	if len(readonly) > 0 {
		guardReadonlyAssigns(file, readonly)
	}
	arrays.finish()
	indirect.finish(arrays.namerefs, arrays.assoc)
	if subshells || appends || answered {
		markSubshells(file, appends)
	}
	if pipestatus {
		notePipelines(file)
	}
	// Last: a guard's two branches share their list, which no rewrite
	// may meet twice.
	guardLoopExits(file)
}

// Rewritable reports whether n is a node Script may change: a
// script without one runs as parsed (the kernel's static pass asks it of every node). It
// names the nodes the walk above acts on.
//
// It is exact for the nodes every script is full of, so that a script of
// plain commands, assignments and expansions is not walked again:
// a parameter expansion is changed only for $DIRSTACK, $!, $-, ${!ref},
// ${10} and beyond, an index or a slice, and PIPESTATUS, BASHPID,
// BASH_SUBSHELL or the clock's variables (whose scripts' pipelines and
// subshells change); an
// assignment only for an index, a backslash in its value, RANDOM, a list
// of keyed elements or none (arrayRewrite) or an array element that glues
// text to "$@" or "${a[@]}" (glueWords), or an append of one value to
// a name (appendsToFirst); an arithmetic command only for a
// write to an array element; a [[ -v ]] only for an element; a command
// substitution only in the $(< FILE) shape; a for loop only in the (( ))
// form or for a word that glues; an arithmetic expansion only for an
// operator that can fail or a constant bash rejects (see guardExpr); a
// [[ ]] only for an integer comparison or a regex; a command only for
// break or continue (guardLoopExits), a declaration after prefix
// assignments (rewriteDeclPrefix) or a word that glues. The loops and
// backgrounds of a nested list are nodes of their own.
func Rewritable(n syntax.Node) bool { return AllHints.Rewritable(n) }

// Rewritable is [Rewritable] of a node of a script whose text holds h.
func (h Hints) Rewritable(n syntax.Node) bool {
	// The kinds first, in a switch small enough to inline into the walk
	// that asks it of every node; then the node itself.
	switch n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp, *syntax.CoprocClause,
		*syntax.Assign, *syntax.LetClause, *syntax.BinaryTest, *syntax.ForClause, *syntax.DeclClause, *syntax.Stmt,
		*syntax.CallExpr, *syntax.WordIter, *syntax.SglQuoted, *syntax.ExtGlob, *syntax.UnaryTest, *syntax.Redirect, *syntax.ArithmCmd:
		return h.RewritableNode(n)
	}
	return false
}

// Hints are what a script's text holds that some of Rewritable's checks
// look for, so that a node of a script without it skips them: a tilde
// prefix needs a '~' in the text, a word that glues text to "$@" or
// "${a[@]}" (glueWords) an '@'. The zero Hints hold neither.
type Hints struct {
	tilde, at bool
	// answered is set when the text names a variable the session answers
	// as it is read and no listing of variables holds (OSTYPE, HOSTTYPE,
	// MACHTYPE, HOSTNAME): a subshell run in the background would lose it
	// unless marked (markSubshells).
	answered bool
}

// Answered reports whether the script's text names a variable the session
// answers as it is read: Script must then mark its subshells.
func (h Hints) Answered() bool { return h.answered }

// AllHints are the Hints of a script that may hold everything: each
// check is left to the node itself.
var AllHints = Hints{tilde: true, at: true, answered: true}

// HintsOf reads src's Hints, a vector at a time.
func HintsOf(src string) Hints {
	return Hints{
		tilde:    strings.IndexByte(src, '~') >= 0,
		at:       strings.IndexByte(src, '@') >= 0,
		answered: strings.Contains(src, "TYPE") || strings.Contains(src, "HOSTNAME"),
	}
}

// RewritableNode is [Rewritable] of n, whatever its kind.
func RewritableNode(n syntax.Node) bool { return AllHints.RewritableNode(n) }

// RewritableNode is [Hints.Rewritable] of n, whatever its kind.
func (h Hints) RewritableNode(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.ProcSubst, *syntax.LetClause, *syntax.DeclClause, *syntax.ExtGlob, *syntax.CoprocClause:
		// A coprocess is refused where it runs (refuseCoproc).
		return true
	case *syntax.BinaryTest:
		// What a [[ ]] changes: an integer comparison's operands
		// (guardArithmNode) and a regex (quoteRegexLiterals).
		return intComparison(n.Op) || n.Op == syntax.TsReMatch
	case *syntax.ArithmExp:
		return n.Left.IsValid() && mayGuard(n.X)
	case *syntax.ParamExp:
		if n.Param != nil && plain(n) {
			return plainParamRewritable(n)
		}
		return paramRewritable(n, h)
	case *syntax.Assign:
		return n.Index != nil || appendsToFirst(n) || !n.Naked && n.Value != nil && hasBackslashLit(n.Value) || h.tilde && tildeRewritable(n) || seedsRandom(n) ||
			shast.KeyedList(n) ||
			h.at && n.Array != nil && slices.ContainsFunc(n.Array.Elems, func(el *syntax.ArrayElem) bool { return el.Value != nil && glues(el.Value) })
	case *syntax.ArithmCmd:
		return shast.ElementWrite(n.X) != nil
	case *syntax.WordIter:
		return h.tilde && tildeRewritable(n)
	case *syntax.UnaryTest:
		if _, _, ok := shast.ElementOperand(n.X); n.Op == syntax.TsVarSet && ok {
			return true
		}
		return optionTestRewritable(n)
	case *syntax.SglQuoted:
		return ansiCRewritable(n)
	case *syntax.CmdSubst:
		return len(n.Stmts) == 1 && n.Stmts[0].Cmd == nil
	case *syntax.ForClause:
		switch loop := n.Loop.(type) {
		case *syntax.CStyleLoop:
			return true
		case *syntax.WordIter:
			return h.at && slices.ContainsFunc(loop.Items, glues)
		}
		return false
	case *syntax.Stmt:
		return n.Background
	case *syntax.Redirect:
		return redirectRewritable(n)
	case *syntax.CallExpr:
		// A break or continue, which guardLoopExits may guard the rest of
		// its list for; a declaration with prefix assignments
		// (rewriteDeclPrefix); a tilde prefix (rewriteTildes); a word
		// that glues text to "$@" (glueWords).
		if exitsLoops(n, 0) || declPrefixed(n) {
			return true
		}
		if !h.tilde && !h.at {
			return false
		}
		for _, w := range n.Args {
			if _, _, ok := leadingPrefix(w); ok && h.tilde || h.at && glues(w) {
				return true
			}
		}
	}
	return false
}

// paramRewritable reports whether a rewrite may change pe, of a script
// whose text holds h.
func paramRewritable(pe *syntax.ParamExp, h Hints) bool {
	if _, ok := positionalBeyondNine(pe); ok || plainFlags(pe) || readsPipestatus(pe) || readsSubshellVars(pe) {
		return true
	}
	return pe.Index != nil || pe.Slice != nil || indirection(pe) ||
		pe.Param != nil && (pe.Param.Value == "DIRSTACK" || pe.Param.Value == "!") ||
		h.tilde && tildeRewritable(pe) || extglobRewritable(pe) || isOptionVar(pe)
}

// plainParamRewritable is paramRewritable of a plain $name or ${name},
// most of a script's expansions, which only its name can make rewritable.
func plainParamRewritable(pe *syntax.ParamExp) bool {
	switch name := pe.Param.Value; name {
	case "-", "!", "PIPESTATUS", "DIRSTACK", "SHELLOPTS", "BASHOPTS":
		return true
	default:
		if readsSubshellVars(pe) {
			return true
		}
		// ${10} and up.
		if name[0] < '0' || name[0] > '9' {
			return false
		}
		_, ok := positionalBeyondNine(pe)
		return ok
	}
}

// mayGuard reports whether guardExpr may change x: it goes where
// guardExpr goes and finds an operator that can fail or a constant bash
// rejects.
func mayGuard(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.Word:
		_, bad := badConstant(x)
		return bad
	case *syntax.ParenArithm:
		return mayGuard(x.X)
	case *syntax.UnaryArithm:
		return x.Op != syntax.Inc && x.Op != syntax.Dec && mayGuard(x.X)
	case *syntax.BinaryArithm:
		if failingOp(x.Op) {
			return true
		}
		if _, assign := shast.ArithAssignOp(x.Op); !assign && mayGuard(x.X) {
			return true
		}
		return mayGuard(x.Y)
	}
	return false
}

// hasBackslashLit reports whether a literal part of w holds a backslash.
func hasBackslashLit(w *syntax.Word) bool {
	for _, part := range w.Parts {
		if lit, ok := part.(*syntax.Lit); ok && strings.Contains(lit.Value, `\`) {
			return true
		}
	}
	return false
}
