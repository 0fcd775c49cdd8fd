package repl

import "testing"

func TestIncomplete(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"echo hi", false},
		{"echo 'one", true},
		{`echo "one`, true},
		{"echo 'one\ntwo'", false},
		{"echo $(date", true},
		{"if true; then", true},
		{"if true; then echo y; fi", false},
		{"for i in 1 2; do", true},
		{"for i in 1 2; do echo $i; done", false},
		{"while true; do", true},
		{"until false; do :; done", false},
		{"f() {", true},
		{"f() { :; }", false},
		{"cat <<EOF", true},
		{"cat <<EOF\nbody", true},
		{"cat <<EOF\nbody\nEOF", false},
		{"cat <<-'END' | wc -l\n\tx\n\tEND", false},
		{"echo a |", true},
		{"echo a &&", true},
		{`echo a \`, true},
		{`echo a \\`, false},
		{`echo a \\\`, true},
		{`echo hi # note \`, false},
		{"echo a \\\n# note \\", false},
		{"# only a comment \\", false},
		{`echo '#' \`, true},
		{"echo )", false}, // a syntax error: running it reports it
	} {
		if got := incomplete(tc.src); got != tc.want {
			t.Errorf("incomplete(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}
