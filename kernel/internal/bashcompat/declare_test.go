package bashcompat

import (
	"testing"

	"mvdan.cc/sh/v3/expand"
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

// declClause quotes each value, so that nothing expands twice, splits
// combined flags and does the work of the attributes mvdan/sh refuses.
func TestDeclClause(t *testing.T) {
	for _, tc := range []struct {
		variant string
		args    []string
		want    string
	}{
		{"export", []string{"b=2"}, "export b=2"},
		{"declare", []string{"v=a $HOME"}, "declare v='a $HOME'"},
		{"declare", []string{"-rx", "y=2"}, "declare -r -x y=2"},
		{"declare", []string{"-i", "n=2+3", "e="}, "declare n=$((2+3\n)) e=$((0\n))"},
		{"declare", []string{"-i", "n=$(id)"}, "declare n='$(id)'"},
		{"typeset", []string{"-lx", "l=AbC"}, "typeset -x l=abc"},
		{"local", []string{"s+=x", "a[1]=y", "a[$(id)]=z"}, "local s+=x a[1]=y 'a[$(id)]=z'"},
		{"export", []string{"a b=1"}, "export 'a b=1'"},
		{"declare", []string{"--", "-a=1"}, "declare -- '-a=1'"},
	} {
		if got := declClause(tc.variant, tc.args); got != tc.want {
			t.Errorf("declClause(%s, %q) = %q, want %q", tc.variant, tc.args, got, tc.want)
		}
	}
}
