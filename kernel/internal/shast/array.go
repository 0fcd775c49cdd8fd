package shast

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The array constructs package rewrite runs as bash does, which the static
// pass's notes must know too.

// KeyedList reports whether as assigns a list whose every element has
// a key that is a word (`m=([k]=v)`, `m+=([$k]=v)`), or an empty list
// (`m=()`): what an associative array takes otherwise than an indexed one,
// and package rewrite runs by the array's kind.
func KeyedList(as *syntax.Assign) bool {
	if as.Name == nil || as.Array == nil || as.Index != nil {
		return false
	}
	if len(as.Array.Elems) == 0 {
		return !as.Append
	}
	for _, e := range as.Array.Elems {
		if _, ok := e.Index.(*syntax.Word); !ok {
			return false
		}
	}
	// The first key goes in double quotes, where a backslash means
	// another thing.
	for _, part := range as.Array.Elems[0].Index.(*syntax.Word).Parts {
		if lit, ok := part.(*syntax.Lit); ok && strings.Contains(lit.Value, `\`) {
			return false
		}
	}
	return true
}

// AppendsElement reports whether as is `NAME[k]+=STR` with a key that
// can be read again (package rewrite makes it NAME[k]=${NAME[k]}STR).
func AppendsElement(as *syntax.Assign) bool {
	idx, ok := as.Index.(*syntax.Word)
	if !as.Append || as.Name == nil || as.Value == nil || !ok || !PureWord(idx) {
		return false
	}
	if len(as.Value.Parts) == 0 {
		return true
	}
	if lit, ok := as.Value.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
		return false // a tilde the value would no longer start with
	}
	return true
}

// ElementOperand splits x, the operand of [[ -v ]], into the array's name
// and the subscript's word, when it is NAME[SUBSCRIPT] with a subscript
// that is a key or index as it stands: a name, an integer, or a word of
// parameters and quotes (not arithmetic, which a key would not be).
func ElementOperand(x syntax.TestExpr) (string, *syntax.Word, bool) {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) == 0 {
		return "", nil, false
	}
	// The name and the [ are in the leading literals.
	var head strings.Builder
	i := 0
	for ; i < len(w.Parts); i++ {
		lit, ok := w.Parts[i].(*syntax.Lit)
		if !ok {
			return "", nil, false
		}
		if j := strings.IndexByte(lit.Value, '['); j >= 0 {
			head.WriteString(lit.Value[:j])
			rest := lit.Value[j+1:]
			parts := append([]syntax.WordPart{}, w.Parts[i+1:]...)
			if rest != "" {
				parts = append([]syntax.WordPart{&syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: rest}}, parts...)
			}
			return elementSubscript(head.String(), parts)
		}
		head.WriteString(lit.Value)
	}
	return "", nil, false
}

// elementSubscript is ElementOperand's end: parts, after the [, must end with the
// ].
func elementSubscript(name string, parts []syntax.WordPart) (string, *syntax.Word, bool) {
	if !syntax.ValidName(name) || len(parts) == 0 {
		return "", nil, false
	}
	last, ok := parts[len(parts)-1].(*syntax.Lit)
	if !ok || !strings.HasSuffix(last.Value, "]") {
		return "", nil, false
	}
	parts = parts[:len(parts)-1]
	if v := strings.TrimSuffix(last.Value, "]"); v != "" {
		parts = append(parts, &syntax.Lit{ValuePos: last.ValuePos, ValueEnd: last.ValueEnd, Value: v})
	}
	idx := &syntax.Word{Parts: parts}
	if len(parts) == 0 || !PureWord(idx) {
		return "", nil, false
	}
	if lit, ok := LiteralText(idx); ok && !plainSubscript(lit) {
		return "", nil, false
	}
	return name, idx, true
}

// plainSubscript reports whether a literal subscript means the same as a
// key and as an index: a name or an integer.
func plainSubscript(s string) bool {
	if syntax.ValidName(s) {
		return true
	}
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// QuotedFirstKey reports whether as assigns a list whose first key is
// quoted whole (`m=(["k"]=v)`), which mvdan/sh makes an associative array.
func QuotedFirstKey(as *syntax.Assign) bool {
	if as.Array == nil || len(as.Array.Elems) == 0 {
		return false
	}
	w, ok := as.Array.Elems[0].Index.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return false
	}
	switch w.Parts[0].(type) {
	case *syntax.DblQuoted, *syntax.SglQuoted:
		return true
	}
	return false
}
