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
