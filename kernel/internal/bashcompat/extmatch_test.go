package bashcompat

import "testing"

// Each row was checked with bash 5.2: shopt -s extglob; [[ $name == $pat ]].
func TestExtMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"!(*.txt)", "a.txt", false},
		{"!(*.txt)", "a.log", true},
		{"!(readme)", "readme", false},
		{"!(readme)", "readme2", true},
		{"@(a|b).log", "b.log", true},
		{"@(a|b).log", "c.log", false},
		{"+(a)", "aaa", true},
		{"+(a)", "", false},
		{"*(ab)", "", true},
		{"*(ab)c", "ababc", true},
		{"?(x)y", "y", true},
		{"?(x)y", "xxy", false},
		{"@(+(a)|c).@(log|md)", "aa.md", true},
		{"l!(x)", "lines.txt", true},
		{"+([0-9])", "123", true},
		{"+([0-9])", "12a", false},
		{"[!a]*", "abc", false},
		{"[[:upper:]]*", "Abc", true},
		{`\*`, "*", true},
		{`a\?`, "ab", false},
		{"!(a|b)", "", true},
		{"*.@(tar|gz)", "x.gz", true},
	} {
		if got := extMatch(tc.pat, tc.name, matchMode{ext: true}); got != tc.want {
			t.Errorf("%q matching %q = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
}

func TestPatternOp(t *testing.T) {
	m := matchMode{ext: true}
	for _, tc := range []struct{ op, value, pat, repl, want string }{
		{"##", "aaab", "+(a)", "", "b"},
		{"#", "aaab", "+(a)", "", "aab"},
		{"%%", "text   ", "+( )", "", "text"},
		{"%", "archive.tar.gz", ".@(gz|bz2)", "", "archive.tar"},
		{"//", "a1b22c333", "+([0-9])", "#", "a#b#c#"},
		{"/", "a--b--c", "+(-)", "_", "a_b--c"},
		{"/#", "xxabcxx", "+(x)", "<", "<abcxx"},
		{"/%", "xxabcxx", "+(x)", ">", "xxabc>"},
	} {
		if got := patternOp(tc.op, tc.value, tc.pat, tc.repl, m); got != tc.want {
			t.Errorf("${%q%s%s/%s} = %q, want %q", tc.value, tc.op, tc.pat, tc.repl, got, tc.want)
		}
	}
}

func FuzzExtMatch(f *testing.F) {
	for _, s := range [][2]string{{"!(*.txt)", "a.log"}, {"@(+(a)|c).@(log|md)", "aa.md"}, {"[!a-c]*", "d"}, {`\*(`, "*("}, {"*(", "x"}, {"[[:alpha:]", "a"}} {
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, pat, name string, nocase bool) {
		if len(pat) > 24 || len(name) > 24 {
			t.Skip() // backtracking is exponential in nested groups, as bash's
		}
		extMatch(pat, name, matchMode{nocase: nocase, ext: true})
		patternOp("//", name, pat, "x", matchMode{ext: true})
	})
}
