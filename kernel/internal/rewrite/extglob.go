package rewrite

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The extglob rewrite (docs/mvdan.md, "Extglob"): mvdan/sh expands a
// word holding an extglob group as a pathname only when it also holds *, ?
// or [, matches !(…) against dotfiles, takes one !(…) group at most, and
// its ${v#pattern}, ${v%pattern} and ${v/pattern/string} do not know the
// groups at all. A statement whose command has such a word (all literal)
// or such an expansion (with a literal pattern) gets a statement before it
// that runs shast.CmdExtglob, which shelter answers by expanding them as
// bash does into MatchVarPrefix variables (a prelude); the word becomes
// "${SHELTER_MATCH_N[@]}", the expansion ${SHELTER_MATCH_N}.

// extglobStmt rewrites st's command, numbering its variables from next.
func extglobStmt(st *syntax.Stmt, next *int) {
	if st.Cmd == nil {
		return
	}
	p := prelude{st: st, cmd: shast.CmdExtglob, next: next}
	add := p.add
	globWords := func(words []*syntax.Word) {
		for i, w := range words {
			if pat, ok := extglobWord(w); ok {
				words[i] = quotedArray(add(shast.LitWord("glob"), sglWord(pat)))
			}
		}
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(cmd.Args) > 1 {
			globWords(cmd.Args[1:])
		}
		for _, as := range cmd.Assigns {
			if as.Array != nil {
				for _, el := range as.Array.Elems {
					if el.Index == nil && el.Value != nil {
						if pat, ok := extglobWord(el.Value); ok {
							el.Value = quotedArray(add(shast.LitWord("glob"), sglWord(pat)))
						}
					}
				}
			}
		}
	case *syntax.ForClause:
		if it, ok := cmd.Loop.(*syntax.WordIter); ok {
			globWords(it.Items)
		}
	}
	eachOwnParamExp(st.Cmd, func(pe *syntax.ParamExp) {
		op, pat, repl, ok := extglobParamOp(pe)
		if !ok {
			return
		}
		value := &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{
			&syntax.ParamExp{Param: pe.Param}}}}}
		args := []*syntax.Word{shast.LitWord(op), value, sglWord(pat)}
		if repl != nil {
			args = append(args, repl)
		}
		name := add(args...)
		*pe = syntax.ParamExp{Dollar: pe.Dollar, Rbrace: pe.Rbrace, Param: &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: name}}
	})
	p.finish()
}

// eachOwnParamExp calls f for each parameter expansion of cmd's own words:
// not those of the statements it holds (a body, a condition, a
// substitution), which are statements of their own.
func eachOwnParamExp(cmd syntax.Command, f func(*syntax.ParamExp)) {
	shast.Walk(cmd, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.CaseItem:
			return false
		case *syntax.ParamExp:
			f(n)
		}
		return true
	})
}

// extglobWord is the pattern of w when w is all literal and holds an
// extglob group (and no brace, which brace expansion would take first).
func extglobWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	group := false
	for _, part := range w.Parts {
		switch part := part.(type) {
		case *syntax.Lit:
			if strings.Contains(part.Value, "{") {
				return "", false
			}
			b.WriteString(part.Value)
		case *syntax.ExtGlob:
			group = true
			b.WriteString(part.Op.String() + part.Pattern.Value + ")")
		default:
			return "", false
		}
	}
	return b.String(), group
}

// extglobParamOp is the operator, the pattern and the replacement (nil
// for none) of pe when it is a removal or replacement of a variable with a
// literal pattern that holds an extglob group.
func extglobParamOp(pe *syntax.ParamExp) (op, pat string, repl *syntax.Word, ok bool) {
	if pe.Param == nil || pe.Index != nil || pe.Slice != nil || pe.Excl || pe.Length || pe.Width || pe.NestedParam != nil {
		return "", "", nil, false
	}
	switch pe.Param.Value {
	case "@", "*":
		return "", "", nil, false
	}
	var w *syntax.Word
	switch {
	case pe.Exp != nil && pe.Repl == nil:
		switch pe.Exp.Op {
		case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			op, w = pe.Exp.Op.String(), pe.Exp.Word
		default:
			return "", "", nil, false
		}
	case pe.Repl != nil && pe.Exp == nil:
		op, w = "/", pe.Repl.Orig
		if pe.Repl.All {
			op = "//"
		}
		repl = pe.Repl.With
		if repl == nil {
			repl = shast.LitWord("")
		} else if !quotedOnly(repl) {
			return "", "", nil, false
		}
	default:
		return "", "", nil, false
	}
	if w == nil || len(w.Parts) != 1 {
		return "", "", nil, false
	}
	lit, isLit := w.Parts[0].(*syntax.Lit)
	if !isLit || !hasExtGroup(lit.Value) {
		return "", "", nil, false
	}
	pat = lit.Value
	if op == "/" || op == "//" {
		// ${v/#p/r} and ${v/%p/r} anchor the pattern.
		if rest, cut := strings.CutPrefix(pat, "#"); cut {
			op, pat = "/#", rest
		} else if rest, cut := strings.CutPrefix(pat, "%"); cut {
			op, pat = "/%", rest
		}
	}
	return op, pat, repl, true
}

// quotedOnly reports whether w is literal text, which the replacement
// command may take as a word of its own.
func quotedOnly(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

// hasExtGroup reports whether pat holds ?( *( +( @( or !(.
func hasExtGroup(pat string) bool {
	for i := 0; i+1 < len(pat); i++ {
		if pat[i+1] == '(' && strings.IndexByte("?*+@!", pat[i]) >= 0 {
			return true
		}
	}
	return false
}

// extglobRewritable reports whether the extglob rewrite may change n.
func extglobRewritable(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.ExtGlob:
		return true
	case *syntax.ParamExp:
		_, _, _, ok := extglobParamOp(n)
		return ok
	}
	return false
}

func sglWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: s}}}
}

// quotedArray is the word "${name[@]}".
func quotedArray(name string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.ParamExp{
		Param: &syntax.Lit{Value: name},
		Index: &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "@"}}},
	}}}}}
}
