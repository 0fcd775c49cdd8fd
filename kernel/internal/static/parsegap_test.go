package static

import (
	"errors"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestBashAccepts parses each script with mvdan/sh, as the kernel does,
// and holds the parse error's message to what it adds: what bash does and
// the workaround, or nothing for a script bash refuses too.
func TestBashAccepts(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   string // a part of what BashAccepts adds; "" for nothing
	}{
		{"x=([2]+=7); echo ${x[2]}", "workaround: x=([k]=v)"},
		{"echo $((1 ? 2 : x+=2))", "bash parses it and fails only this arithmetic"},
		{"(( 'a[$k]'++ ))", "a[k]=$(( a[k] + 1 ))"},
		{"v=HeLLo\necho ${v~~}", "toggle the case"},
		{"echo $((1 +))", "complete the expression"},
		{"echo $((1.5))", "awk"},
		{`echo "[${!-none}]"`, "workaround: ${!:-word}"},
		{"declare -A m=([a b]=1)", `["a b"]=v`},
		{"{ let; } 2>/dev/null", "fails only let"},
		{"let x=1 2>/dev/null; echo $x", "workaround: { let …; } 2>/dev/null"},
		{"echo 'unterminated", ""},
		{"if true; then", ""},
		{"echo $(( 1 + ))x", "complete the expression"},
		{"a=(\n[x]+=1)", "workaround: x=([k]=v)"},
	} {
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(tc.script), "")
		var pe syntax.ParseError
		var le syntax.LangError
		var line, col int
		var msg string
		switch {
		case errors.As(err, &pe):
			line, col, msg = int(pe.Pos.Line()), int(pe.Pos.Col()), pe.Text
		case errors.As(err, &le):
			line, col, msg = int(le.Pos.Line()), int(le.Pos.Col()), le.Error()
		default:
			t.Errorf("%q parses (%v)", tc.script, err)
			continue
		}
		got, ok := BashAccepts(tc.script, line, col, msg)
		if tc.want == "" {
			if ok {
				t.Errorf("%q: bash refuses it too, yet BashAccepts says %q", tc.script, got)
			}
			continue
		}
		if !ok || !strings.Contains(got, tc.want) || !strings.HasPrefix(got, "bash") || !strings.Contains(got, "; workaround: ") {
			t.Errorf("%q (%s at %d:%d): BashAccepts = %q, %v; want it to hold %q", tc.script, msg, line, col, got, ok, tc.want)
		}
	}
}

// FuzzBashAccepts: any source, position and message, never a panic.
func FuzzBashAccepts(f *testing.F) {
	f.Add("x=([2]+=7)", 1, 4, "`[x]` must be followed by `=`")
	f.Add("a\nb", 3, 9, "")
	f.Add("", 0, 0, "must follow a name")
	f.Add("ab\ncd", 2, int(^uint(0)>>1), "must follow a name")
	f.Fuzz(func(t *testing.T, src string, line, col int, msg string) {
		BashAccepts(src, line, col, msg)
	})
}
