package kernel

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

func TestDeclareLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		vr   expand.Variable
		want string
	}{
		{"v", expand.Variable{Set: true, Kind: expand.String, Str: `a "q" $b ` + "`c` \\d"}, `declare -- v="a \"q\" \$b ` + "\\`c\\`" + ` \\d"`},
		{"e", expand.Variable{Set: true, Kind: expand.String, Str: "t\tn\n"}, `declare -- e=$'t\tn\n'`},
		{"x", expand.Variable{Exported: true}, `declare -x x`},
		{"ro", expand.Variable{Set: true, Kind: expand.String, Str: "1", ReadOnly: true, Exported: true}, `declare -rx ro="1"`},
		{"a", expand.Variable{Set: true, Kind: expand.Indexed, List: []string{"1", ""}}, `declare -a a=([0]="1" [1]="")`},
		{"m", expand.Variable{Set: true, Kind: expand.Associative, Map: map[string]string{"k": "v", "a b": "2"}}, `declare -A m=(["a b"]="2" [k]="v" )`},
		{"n", expand.Variable{Set: true, Kind: expand.NameRef, Str: "v"}, `declare -n n="v"`},
	} {
		if got := declareLine(tc.name, tc.vr); got != tc.want+"\n" {
			t.Errorf("declareLine(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestFuncText(t *testing.T) {
	for src, want := range map[string]string{
		"f() { echo one; echo two; }":  "f () \n{ \n    echo one;\n    echo two\n}",
		"f() ( echo sub )":             "f () \n{ \n    ( echo sub )\n}",
		"f() { a && b | c; x & y; }":   "f () \n{ \n    a && b | c;\n    x & y\n}",
		"f() { while a; do b; done; }": "f () \n{ \n    while a; do\n        b;\n    done\n}",
		"f() { g() { :; }; }":          "f () \n{ \n    function g () \n    { \n        :\n    }\n}",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		fd := f.Stmts[0].Cmd.(*syntax.FuncDecl)
		if got := funcText(fd.Name.Value, fd.Body, false); got != want {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
	}
}
