package rewrite

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The rewrite takes the listing and unexporting clauses only: a clause
// that assigns, or whose flags it cannot see, stays mvdan/sh's.
func TestRewriteDeclQuery(t *testing.T) {
	for src, want := range map[string]bool{
		"declare -F":        true,
		"declare -f f g":    true,
		"declare -p v":      true,
		"declare -p $n":     true,
		"declare +x v":      true,
		"typeset -p v":      true,
		"export -p":         true,
		"export":            true,
		"export -n v":       true,
		"readonly":          true,
		"readonly -p":       true,
		"declare":           false,
		"declare v":         false,
		"declare -p v=1":    false,
		"declare -x v":      false,
		"declare $opt v":    false,
		"export v":          false,
		"export -n v=1":     false,
		"readonly v":        false,
		"local -p":          false,
		"declare -a arr=()": false,
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		rewriteDeclQuery(f.Stmts[0])
		_, got := f.Stmts[0].Cmd.(*syntax.CallExpr)
		if got != want {
			t.Errorf("%q: rewritten = %v, want %v", src, got, want)
		}
	}
}

// A prefix assignment moves into the declaration that keeps it.
func TestRewriteDeclPrefix(t *testing.T) {
	for src, want := range map[string]string{
		"t=foo declare -r t":       `declare -x -r t="foo"`,
		"t=foo export t":           `export t="foo"`,
		"t=$v u=1 local t":         `u=1 local -x t="$v"`,
		"t=foo readonly t u":       `readonly t="foo" u`,
		"t=foo declare t":          "t=foo declare t",
		"t=foo declare -p t":       "t=foo declare -p t",
		"t=~/x export t":           "t=~/x export t",
		"t=a\\ b export t":         "t=a\\ b export t",
		"a=1 export b=2":           "a=1 export b=2",
		"t=foo u=bar readonly u t": `readonly -x u="bar" t="foo"`,
		"t=foo declare $f t":       "t=foo declare $f t",
		"t=foo declare -- t":       "t=foo declare -- t",
		"t=foo declare -r -- t":    `declare -x -r -- t="foo"`,
		"IFS=: export x":           "IFS=: export x",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		rewriteDeclPrefix(f.Stmts[0])
		var b strings.Builder
		syntax.NewPrinter().Print(&b, f.Stmts[0])
		if got := b.String(); got != want {
			t.Errorf("%q: rewritten to %q, want %q", src, got, want)
		}
	}
}

// local of names alone becomes a call; any flag, value or computed word
// keeps the clause.
func TestRewriteLocalNames(t *testing.T) {
	for src, want := range map[string]bool{
		"local x":      true,
		"local x y z":  true,
		"local x=1":    false,
		"local x y=1":  false,
		"local -a x":   false,
		"local $n":     false,
		"declare x":    false,
		"local -":      false,
		"local x[1]":   false,
		"export x":     false,
		"readonly x y": false,
		"typeset x":    false,
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		rewriteLocalNames(f.Stmts[0])
		if _, got := f.Stmts[0].Cmd.(*syntax.CallExpr); got != want {
			t.Errorf("%q: rewritten = %v, want %v", src, got, want)
		}
	}
}

// Combined flags become one word each; a listing of attributes alone
// becomes a call.
func TestSplitDeclFlagsAndList(t *testing.T) {
	for src, want := range map[string]string{
		"declare -rx y=2":  "declare -r -x y=2",
		"local -ri n":      "local -r -i n",
		"declare -- x":     "declare -- x",
		"declare -r":       "declare -r",
		"typeset -rx":      "typeset -r -x",
		"declare -a x=(1)": "declare -a x=(1)",
		"export -fn f":     "export -f -n f",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		splitDeclFlags(f.Stmts[0])
		var b strings.Builder
		syntax.NewPrinter().Print(&b, f.Stmts[0])
		if got := b.String(); got != want {
			t.Errorf("%q: split to %q, want %q", src, got, want)
		}
		rewriteDeclList(f.Stmts[0])
		_, call := f.Stmts[0].Cmd.(*syntax.CallExpr)
		if wantCall := src == "declare -r" || src == "typeset -rx"; call != wantCall {
			t.Errorf("%q: a call = %v, want %v", src, call, wantCall)
		}
	}
}

// A statement that only assigns to a name made readonly somewhere gets
// its guard; other statements, and scripts without readonly, stay.
func TestGuardReadonlyAssigns(t *testing.T) {
	for src, want := range map[string]string{
		"readonly x=1; x=2":          "readonly x=1\nx=2 || \x00shelter:readonly \"$?\" x",
		"declare -r x; y=1 x=2":      "declare -r x\ny=1 x=2 || \x00shelter:readonly \"$?\" x",
		"readonly x=1; x=2 cmd; y=3": "readonly x=1\nx=2 cmd\ny=3",
		"x=2; local -r x":            "x=2 || \x00shelter:readonly \"$?\" x\nlocal -r x",
		"x=2; declare -x x":          "x=2\ndeclare -x x",
		"f() { x=1; }; readonly x=0": "f() { x=1 || \x00shelter:readonly \"$?\" x; }\nreadonly x=0",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		shast.Walk(f, func(n syntax.Node) bool {
			if st, ok := n.(*syntax.Stmt); ok {
				names = append(names, readonlyNames(st)...)
			}
			return true
		})
		if len(names) > 0 {
			guardReadonlyAssigns(f, names)
		}
		var b strings.Builder
		syntax.NewPrinter().Print(&b, f)
		if got := strings.TrimSpace(b.String()); got != want {
			t.Errorf("%q: guarded to %q, want %q", src, got, want)
		}
		for _, st := range f.Stmts {
			if orig, ok := ReadonlyGuarded(st); ok {
				if _, plain := orig.Cmd.(*syntax.CallExpr); !plain {
					t.Errorf("%q: ReadonlyGuarded gave %T", src, orig.Cmd)
				}
			}
		}
	}
}
