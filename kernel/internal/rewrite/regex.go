package rewrite

import (
	"regexp"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// quoteRegexLiterals makes the quoted parts of `[[ WORD =~ REGEX ]]`
// match literally, as in bash: mvdan/sh hands the whole expanded REGEX to
// the regexp compiler, so that `"a.c"` matches "abc" and `'('` is an
// invalid pattern. A quoted part whose text is known before the run
// becomes single quotes around that text with its metacharacters escaped;
// one that expands something (`"$re"`) is left as it is.
func quoteRegexLiterals(bt *syntax.BinaryTest) {
	w, ok := bt.Y.(*syntax.Word)
	if !ok || bt.Op != syntax.TsReMatch {
		return
	}
	for i, part := range w.Parts {
		if q, ok := literalQuote(part); ok {
			w.Parts[i] = q
		}
	}
}

// literalQuote is a quoted part that expands nothing (`'...'`, `$'...'`,
// or double quotes around plain text) as single quotes around its value
// with every regular expression metacharacter escaped.
func literalQuote(part syntax.WordPart) (*syntax.SglQuoted, bool) {
	var left, right syntax.Pos
	switch q := part.(type) {
	case *syntax.SglQuoted:
		left, right = q.Left, q.Right
	case *syntax.DblQuoted:
		for _, p := range q.Parts {
			if _, ok := p.(*syntax.Lit); !ok {
				return nil, false
			}
		}
		left, right = q.Left, q.Right
	default:
		return nil, false
	}
	// The value depends on no variable: a fresh, empty config decodes the
	// escapes as the run would.
	value, err := expand.Literal(&expand.Config{}, &syntax.Word{Parts: []syntax.WordPart{part}})
	if err != nil {
		return nil, false
	}
	return &syntax.SglQuoted{Left: left, Right: right, Value: regexp.QuoteMeta(value)}, true
}
