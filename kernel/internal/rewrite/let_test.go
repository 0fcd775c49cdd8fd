package rewrite

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// A let clause becomes a call when an argument is known only at run time;
// its other arguments become their text.
func TestRewriteLetCall(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		call      bool
	}{
		{`let "a = $x * 2"`, `let "a = $x * 2"`, true},
		{`let $e`, `let $e`, true},
		{`let "a = $x" b=a*2+1`, `let "a = $x" 'b=a*2+1'`, true},
		{`let a=1+2 b=a*3`, "let a=1+2 b=a*3", false},
		{`let "a = 3 * 4"`, "let a=3*4", false},
		{`let 'a[1]=5'`, `let 'a[1]=5'`, true},
		{`let a[1]=5 b=2`, `let 'a[1]=5' 'b=2'`, true},
		{`let x=08`, `let 'x=08'`, true},
		{`let a=$x+1`, `let "a = $x + 1"`, true},
		{`let v="3 + 4" s=a[i]+1`, `let "v = 3 + 4" 's=a[i]+1'`, true},
		{`let s=a[i]+1`, "let s=a[i]+1", false},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(tc.src), "")
		if err != nil {
			t.Fatal(err)
		}
		rewriteLetCall(f.Stmts[0])
		_, call := f.Stmts[0].Cmd.(*syntax.CallExpr)
		var b strings.Builder
		syntax.NewPrinter().Print(&b, f.Stmts[0])
		if got := b.String(); got != tc.want || call != tc.call {
			t.Errorf("%q: rewritten to %q (a call: %v), want %q (%v)", tc.src, got, call, tc.want, tc.call)
		}
	}
}
