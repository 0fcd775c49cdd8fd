package rewrite

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// "x$@y" is as many words as there are parameters in bash, x glued to the
// first and y to the last; mvdan/sh joins them into one word
// (docs/mvdan.md, "Glued parameters"). Where the list is $@ or an array's
// ${a[@]}, the statement first runs the internal glue command on x and y,
// which sets GlueVar+N to the glued words, and the word becomes
// "${SHELTER_GLUEN[@]}". x and y are expanded first, with what precedes
// the word.

// GlueVar is the prefix of the arrays the glue command sets.
const GlueVar = "SHELTER_GLUE"

// gluedList is the list of w, a word that glues text to "$@" or
// "${a[@]}": "@" or the array's name, and the words of the text before
// and after it, to be expanded as the glue command's arguments. ok is
// false for a word that is the list alone, or glues what is not plain
// text outside the quotes.
func gluedList(w *syntax.Word) (list string, before, after *syntax.Word, ok bool) {
	before, after = &syntax.Word{}, &syntax.Word{}
	side := before
	plain := func(lit string) bool { return !strings.ContainsAny(lit, "\\*?[]{}~$`'\"") }
	for _, part := range w.Parts {
		switch part := part.(type) {
		case *syntax.Lit:
			if !plain(part.Value) {
				return "", nil, nil, false
			}
			side.Parts = append(side.Parts, part)
		case *syntax.SglQuoted:
			side.Parts = append(side.Parts, part)
		case *syntax.DblQuoted:
			if part.Dollar {
				return "", nil, nil, false
			}
			quoted := &syntax.DblQuoted{}
			for _, in := range part.Parts {
				pe, isParam := in.(*syntax.ParamExp)
				name, isList := "", false
				if isParam {
					name, isList = listParam(pe)
				}
				if !isList {
					quoted.Parts = append(quoted.Parts, in)
					continue
				}
				if list != "" {
					return "", nil, nil, false
				}
				list = name
				side.Parts = append(side.Parts, quoted)
				side, quoted = after, &syntax.DblQuoted{}
			}
			side.Parts = append(side.Parts, quoted)
		default:
			return "", nil, nil, false
		}
	}
	if list == "" || len(w.Parts) == 1 && len(w.Parts[0].(*syntax.DblQuoted).Parts) == 1 {
		return "", nil, nil, false
	}
	return list, before, after, true
}

// listParam is "@" for $@ and the array's name for ${a[@]}, with no
// operator; isList is false for any other expansion.
func listParam(pe *syntax.ParamExp) (name string, isList bool) {
	if pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.IsSet || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 || pe.Exp != nil {
		return "", false
	}
	if pe.Param.Value == "@" && pe.Index == nil {
		return "@", true
	}
	if pe.Index != nil && allElements(pe.Index) && pe.Param.Value != "@" && pe.Param.Value != "*" {
		return pe.Param.Value, true
	}
	return "", false
}

func allElements(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && w.Lit() == "@"
}

// glues reports whether w is a word glueWords may rewrite: one that holds
// "$@" or "${a[@]}" in quotes and more.
func glues(w *syntax.Word) bool {
	for _, part := range w.Parts {
		d, ok := part.(*syntax.DblQuoted)
		if !ok {
			continue
		}
		for _, in := range d.Parts {
			if pe, ok := in.(*syntax.ParamExp); ok && (len(w.Parts) > 1 || len(d.Parts) > 1) {
				if _, isList := listParam(pe); isList {
					return true
				}
			}
		}
	}
	return false
}

// glueWords rewrites each word of st's command (its arguments, the
// elements of its array assignments, a for loop's words) that glues text
// to a list, and starts st with the glue command of each. It returns the statement
// that now runs the command, not to be glued again; nil when st glues
// nothing.
func glueWords(st *syntax.Stmt) *syntax.Stmt {
	var words []*syntax.Word
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		words = cmd.Args
		for _, as := range cmd.Assigns {
			if as.Array != nil {
				for _, el := range as.Array.Elems {
					if el.Index == nil && el.Value != nil {
						words = append(words, el.Value)
					}
				}
			}
		}
	case *syntax.ForClause:
		if it, ok := cmd.Loop.(*syntax.WordIter); ok {
			words = it.Items
		}
	}
	var glues []*syntax.Stmt
	glue := func(w *syntax.Word) {
		list, before, after, ok := gluedList(w)
		if !ok {
			return
		}
		name := GlueVar + strconv.Itoa(len(glues))
		glues = append(glues, keeping(shast.CallStmt(syntax.Pos{}, shast.LitWord(shast.CmdGlue), shast.LitWord(name),
			shast.LitWord(list), before, after)))
		w.Parts = []syntax.WordPart{&syntax.DblQuoted{Left: w.Pos(), Right: w.End(), Parts: []syntax.WordPart{
			&syntax.ParamExp{Dollar: w.Pos(), Rbrace: w.End(), Param: &syntax.Lit{Value: name}, Index: shast.LitWord("@")},
		}}}
	}
	for _, w := range words {
		glue(w)
	}
	if len(glues) == 0 {
		return nil
	}
	inner := &syntax.Stmt{Position: st.Pos(), Cmd: st.Cmd, Redirs: st.Redirs}
	st.Cmd, st.Redirs = &syntax.Block{Lbrace: st.Pos(), Stmts: append(glues, inner)}, nil
	return inner
}
