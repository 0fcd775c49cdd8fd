package rewrite

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// SetOptionDefaults are the set -o options that mvdan/sh does not
// implement, with the state bash starts them in; shelter's set keeps
// their state in shast.OptionsVar.
var SetOptionDefaults = map[string]bool{
	"braceexpand": true, "emacs": false, "errtrace": false, "functrace": false,
	"hashall": true, "histexpand": false, "history": false, "ignoreeof": false,
	"interactive-comments": true, "keyword": false, "monitor": false, "noclobber": false,
	"nolog": false, "notify": false, "onecmd": false, "physical": false,
	"posix": false, "privileged": false, "verbose": false, "vi": false,
}

// optionTest turns [[ -o NAME ]] of an option in SetOptionDefaults, which
// mvdan/sh reads as off (docs/mvdan.md, "Set and shopt"), into a match of
// the variable that holds it: [[ "${SHELTER_OPTIONS-}" == *" NAME "* ]],
// or != for an option on by default.
func optionTest(x syntax.TestExpr) syntax.TestExpr {
	u, ok := x.(*syntax.UnaryTest)
	if !ok || !optionTestRewritable(u) {
		return x
	}
	name := u.X.(*syntax.Word).Lit()
	op := syntax.TsMatch
	if SetOptionDefaults[name] {
		op = syntax.TsNoMatch
	}
	pos := u.Pos()
	return &syntax.BinaryTest{OpPos: pos, Op: op,
		X: &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.ParamExp{
			Param: &syntax.Lit{Value: shast.OptionsVar},
			Exp:   &syntax.Expansion{Op: syntax.DefaultUnset, Word: &syntax.Word{}}, // set -u may be on
		}}}}},
		Y: &syntax.Word{Parts: []syntax.WordPart{
			&syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: "*"},
			&syntax.SglQuoted{Left: pos, Right: pos, Value: " " + name + " "},
			&syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: "*"},
		}}}
}

func optionTestRewritable(u *syntax.UnaryTest) bool {
	if u.Op != syntax.TsOptSet {
		return false
	}
	w, ok := u.X.(*syntax.Word)
	if !ok {
		return false
	}
	_, held := SetOptionDefaults[w.Lit()]
	return held
}

// rewriteOptionTests rewrites the [[ -o NAME ]] operands of x.
func rewriteOptionTests(x syntax.TestExpr) syntax.TestExpr {
	switch t := x.(type) {
	case *syntax.UnaryTest:
		if t.Op != syntax.TsOptSet {
			t.X = rewriteOptionTests(t.X)
			return t
		}
		return optionTest(t)
	case *syntax.BinaryTest:
		t.X, t.Y = rewriteOptionTests(t.X), rewriteOptionTests(t.Y)
	case *syntax.ParenTest:
		t.X = rewriteOptionTests(t.X)
	}
	return x
}
