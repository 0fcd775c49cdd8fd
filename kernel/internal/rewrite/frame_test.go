package rewrite

import (
	"bytes"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

func parse(t *testing.T, src string) *syntax.File {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// printed is f as the printer has it on one line, shelter's internal
// words readable.
func printed(t *testing.T, f *syntax.File) string {
	t.Helper()
	var b bytes.Buffer
	if err := syntax.NewPrinter(syntax.Minify(true)).Print(&b, f); err != nil {
		t.Fatal(err)
	}
	out := strings.ReplaceAll(strings.TrimSpace(b.String()), "\n", "; ")
	return strings.ReplaceAll(out, shast.InternalPrefix, "@")
}

// Unframed gives back what Framed framed, and nothing else is framed.
func TestFramedRoundTrip(t *testing.T) {
	for _, src := range []string{"f() { echo hi; } > out", "f() ( echo sub )", "f() { { a; }; }", "f() { a; }", "f() [[ -n x ]]"} {
		body := parse(t, src).Stmts[0].Cmd.(*syntax.FuncDecl).Body
		want := printed(t, &syntax.File{Stmts: []*syntax.Stmt{body}})
		framed := Framed(body, "f", "lib.sh", 7)
		orig, source, line, ok := Unframed(framed)
		if !ok || source != "lib.sh" || line != 7 {
			t.Fatalf("%s: Unframed = %q %d %v, want lib.sh, 7", src, source, line, ok)
		}
		if got := printed(t, &syntax.File{Stmts: []*syntax.Stmt{orig}}); got != want {
			t.Errorf("%s: unframed, the body is %q, not %q", src, got, want)
		}
		if _, isBlock := body.Cmd.(*syntax.Block); isBlock == (orig == body) {
			t.Errorf("%s: unframed, the body is the same statement: %v, a block: %v", src, orig == body, isBlock)
		}
		if _, _, _, ok := Unframed(body); ok {
			t.Fatalf("%s: a body Framed never saw is framed", src)
		}
	}
}

func TestSpecialRewrites(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`a | b; echo ${PIPESTATUS[0]}`, "{; (a)||@pipe-rec 0 0|b||@pipe-rec 0 1; @pipe-set 0 2&&@status 0; }; echo ${PIPESTATUS[0]}"},
		{`c; echo ${PIPESTATUS[0]}`, "c; @pipe-set&&@status 0; echo ${PIPESTATUS[0]}"},
		{`a | exit 3; x=${PIPESTATUS[1]}`, "{; (a)||@pipe-rec 0 0|(exit 3)||@pipe-rec 0 1; @pipe-set 0 2&&@status 0; }; x=${PIPESTATUS[1]}"},
		{`echo "$-" ${10} ${1}`, `echo "$(@flags)" ${*:10:1} $1`},
		{`RANDOM=5`, "{; RANDOM=5; @reseed&&@status 0; }"},
		{`( echo $BASH_SUBSHELL )`, "(@subshell&&@status 0; echo $BASH_SUBSHELL)"},
	} {
		f := parse(t, tc.src)
		Script(f, false)
		if got := printed(t, f); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
}
