package rewrite

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// NoCaseMatch rewrites the pattern matches of file that shopt -s
// nocasematch governs, which mvdan/sh does not have (docs/mvdan.md,
// "Nocasematch"): each == != = =~ of a [[ ]] and each case clause gets a
// prelude running shast.CmdMatch, which shelter answers by matching as
// bash does with the option as it is then; the test becomes [[ $VAR ]],
// the case clause's word $VAR and its patterns the items' numbers. The
// kernel applies it only to a script that may run with the option on
// (one naming it, or run while it is on); a match whose words it cannot
// pass on (a process substitution, a tilde) is left as it is.
//
// CmdMatch's arguments after VAR: "test" and the operator, or "case";
// then the words as pairs of a kind and a value: "w" for a piece of the
// word matched, "p" for a piece of a pattern that is a pattern, "q" for
// one that is quoted; a case clause's patterns each begin with "#N",
// its item's number.
func NoCaseMatch(file *syntax.File) {
	next := 0
	done := map[syntax.Command]bool{} // the walk meets each again, in its block
	shast.Walk(file, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok || st.Cmd == nil || done[st.Cmd] {
			return true
		}
		p := prelude{st: st, cmd: shast.CmdMatch, next: &next}
		switch cmd := st.Cmd.(type) {
		case *syntax.TestClause:
			cmd.X = noCaseTest(cmd.X, &p)
			done[cmd] = true
		case *syntax.CaseClause:
			noCaseClause(cmd, &p)
			done[cmd] = true
		}
		p.finish()
		return true
	})
}

// SetsNoCaseMatch reports whether the command of the words args names
// the nocasematch option (shopt -s nocasematch).
func SetsNoCaseMatch(args []shast.Word) bool {
	if len(args) < 2 || args[0].Text != "shopt" {
		return false
	}
	for _, w := range args[1:] {
		if w.Text == "nocasematch" {
			return true
		}
	}
	return false
}

func noCaseTest(x syntax.TestExpr, p *prelude) syntax.TestExpr {
	switch x := x.(type) {
	case *syntax.ParenTest:
		x.X = noCaseTest(x.X, p)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsNot {
			x.X = noCaseTest(x.X, p)
		}
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.AndTest, syntax.OrTest:
			x.X, x.Y = noCaseTest(x.X, p), noCaseTest(x.Y, p)
		case syntax.TsMatchShort, syntax.TsMatch, syntax.TsNoMatch, syntax.TsReMatch:
			left, lok := x.X.(*syntax.Word)
			right, rok := x.Y.(*syntax.Word)
			if !lok || !rok {
				break
			}
			args := []*syntax.Word{shast.LitWord("test"), shast.LitWord(x.Op.String())}
			args, lok = pieceArgs(args, left, "w", "w")
			args, rok = pieceArgs(args, right, "p", "q")
			if !lok || !rok {
				break
			}
			return quotedVar(p.add(args...))
		}
	}
	return x
}

func noCaseClause(cc *syntax.CaseClause, p *prelude) {
	args := []*syntax.Word{shast.LitWord("case")}
	args, ok := pieceArgs(args, cc.Word, "w", "w")
	if !ok {
		return
	}
	for i, item := range cc.Items {
		if item.Op == syntax.Resume || item.Op == syntax.ResumeKorn {
			return // ;;& tests the next patterns: one number cannot say it
		}
		for _, pat := range item.Patterns {
			args = append(args, shast.LitWord("#"+itoa(i)))
			if args, ok = pieceArgs(args, pat, "p", "q"); !ok {
				return
			}
		}
	}
	cc.Word = quotedVar(p.add(args...))
	for i, item := range cc.Items {
		item.Patterns = []*syntax.Word{shast.LitWord(itoa(i))}
	}
}

// pieceArgs appends w's pieces as kind and value pairs: unquoted pieces
// of kind plain (their expansions double-quoted, so that they stay one
// word), quoted ones of kind quoted. ok is false for a piece it cannot
// pass on.
func pieceArgs(args []*syntax.Word, w *syntax.Word, plain, quoted string) ([]*syntax.Word, bool) {
	for i, part := range w.Parts {
		var kind string
		var value *syntax.Word
		switch part := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(part.Value, "~") {
				return args, false
			}
			text := part.Value
			if plain == "w" {
				text = dropEscapes(text)
			}
			kind, value = plain, sglWord(text)
		case *syntax.ExtGlob:
			kind, value = plain, sglWord(part.Op.String()+part.Pattern.Value+")")
		case *syntax.SglQuoted, *syntax.DblQuoted:
			kind, value = quoted, &syntax.Word{Parts: []syntax.WordPart{part}}
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
			kind, value = plain, &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{part}}}}
		default:
			return args, false
		}
		args = append(args, shast.LitWord(kind), value)
	}
	return args, true
}

// quotedVar is the word "$name".
func quotedVar(name string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{
		&syntax.ParamExp{Param: &syntax.Lit{Value: name}}}}}}
}

func itoa(n int) string { return strconv.Itoa(n) }
