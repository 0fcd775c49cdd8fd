package rewrite

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

func TestMayExitLoop(t *testing.T) {
	for src, want := range map[string]bool{
		"break":                           true,
		"continue 2":                      true,
		"builtin break":                   true,
		"echo break":                      false,
		"{ a; break; }":                   true,
		"if a; then b; else continue; fi": true,
		"case x in y) break;; esac":       true,
		"a && break":                      true,
		"for i in 1; do break; done":      false,
		"while a; do continue 1; done":    false,
		"for i in 1; do break 2; done":    true,
		"for i in 1; do for j in 2; do break 2; done; done": false,
		"for i in 1; do break $n; done":                     true,
		"f() { break; }":                                    false,
		"( break )":                                         false,
		"break | cat":                                       false,
		"x=$(break)":                                        false,
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		if got := mayExitLoop(f.Stmts[0], 0); got != want {
			t.Errorf("mayExitLoop(%q) = %v, want %v", src, got, want)
		}
	}
}

// Each guard adds an if around what it moves, never a copy: a list of
// many statements that may break grows by a few nodes a guard, and later
// walks of it stay linear (a guard that held its list twice made a list
// of 24 take 18 s).
func TestExitGuardsGrowLinearly(t *testing.T) {
	src := "while :; do if true; then\n" + strings.Repeat("test -d /tmp || break\n", 200) + "echo end; fi; done"
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n := 0
		shast.Walk(f, func(syntax.Node) bool { n++; return true })
		return n
	}
	before := count()
	Script(f, false)
	if after := count(); after > 2*before {
		t.Fatalf("the rewrite took the script from %d nodes to %d", before, after)
	}
}
