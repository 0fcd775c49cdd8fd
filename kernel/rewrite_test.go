package kernel_test

import (
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// The rewrites shelter makes before a run keep bash's meaning: each row
// is bash's own output for its script.
func TestRewritesKeepBashMeaning(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	cases := []struct{ script, stdout string }{
		// Quoted parts of a regex match literally, unquoted parts are a
		// regex, whether in one word or in a function's body.
		{`[[ 'x+y' =~ ^'x+'(.)$ ]] && echo "${BASH_REMATCH[1]}"`, "y\n"},
		{`[[ xxy =~ ^'x+'(.)$ ]] || echo no`, "no\n"},
		{`[[ a.c =~ a"."c ]] && echo m1; [[ abc =~ a"."c ]] || echo m2`, "m1\nm2\n"},
		{`f() { [[ $1 =~ '[a]'b ]] && echo "y $1"; }; f '[a]b'; f ab`, "y [a]b\n"},
		{`[[ 'a(b' =~ '(' ]] && echo paren`, "paren\n"},
		{`[[ a =~ '' ]] && echo empty`, "empty\n"},
		{`[[ abc =~ $'a.c' ]] || echo ansi; [[ $'a\tc' =~ $'a\t'c ]] && echo tab`, "ansi\ntab\n"},
		{`[[ 'a\b' =~ "a\\b" ]] && echo bs; [[ 'a$b' =~ "a\$b" ]] && echo dollar`, "bs\ndollar\n"},
		{`[[ abc =~ a\.c ]] || echo escaped`, "escaped\n"},
		// An unquoted expansion is a regex.
		{`re=a.c; [[ abc =~ $re ]] && echo unquoted`, "unquoted\n"},
		// An assignment's value loses the backslashes that quote, in
		// every kind of assignment; a tilde still expands unless its
		// prefix has a quoted character.
		{`x=a\ b\"c; echo "[$x]"`, "[a b\"c]\n"},
		{`x=\$HOME\*; y=a\\b; echo "$x $y"`, "$HOME* a\\b\n"},
		{`declare d=a\ b; export e=c\ d; f() { local g=e\ f; echo "$d|$e|$g"; }; f`, "a b|c d|e f\n"},
		{`a[1]=x\ y; x=1; x+=\ 2; echo "${a[1]}|$x"`, "x y|1 2\n"},
		{`HOME=/h; x=~/a\ b; y=\~; z=~ro\ot/c; echo "$x $y $z"`, "/h/a b ~ ~root/c\n"},
		{`x=\é\ ; w=a\;; echo "[$x][$w]"`, "[é ][a;]\n"},
	}
	for _, c := range cases {
		res := run(t, s, c.script)
		if res.Stdout != c.stdout {
			t.Errorf("%s: stdout %q, want %q (exit %d, stderr %q)", c.script, res.Stdout, c.stdout, res.ExitCode, res.Stderr)
		}
	}
}

// The statements the loop rewrite adds do not show: set -x traces none of
// them while no iteration failed, and declare -f prints each loop as the
// script wrote it.
func TestLoopRewriteUnseen(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := run(t, s, `set -x; for ((i=0;i<2;i++)); do true; done; for ((;i<4;i++)); do false; true; done`)
	if want := "+ true\n+ true\n+ false\n+ true\n+ false\n+ true\n"; res.Stderr != want || res.ExitCode != 0 {
		t.Errorf("set -x traced %q (exit %d), want %q", res.Stderr, res.ExitCode, want)
	}
	res = run(t, s, `f() { for ((;;)); do break; done; for ((i=0; i<2; )); do false; done | cat; ! for ((j=0; j<1; j++)); do :; done >/dev/null; for ((; i++ < 3; )); do :; done; }; declare -f f`)
	want := "f () \n{ \n    for ((; ; ))\n    do\n        break;\n    done;\n    for ((i=0; i<2; ))\n    do\n        false;\n    done | cat;\n" +
		"    ! for ((j=0; j<1; j++))\n    do\n        :;\n    done > /dev/null;\n    for ((; i++<3; ))\n    do\n        :;\n    done\n}\n"
	if res.Stdout != want {
		t.Errorf("declare -f printed %q, want %q", res.Stdout, want)
	}
}
