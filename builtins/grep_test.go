package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

var grepFiles = map[string]string{
	"a.txt":   "apple\nbanana\ncherry\nApple pie\napplesauce\n\nan apple a day\nfoo_bar foo\n",
	"b.txt":   "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
	"c.txt":   "no newline at end",
	"bin":     "text\x00more\napple\n",
	"hi.txt":  "caf\xc3\xa9\n\xff\xfe apple\n",
	"pats":    "apple\nthree\n",
	"empty":   "",
	"d/x.go":  "package apple\n",
	"d/y.txt": "apple tree\n",
	"d/e/z.c": "int apple;\n",
	"re.txt":  "a+b\na{1}\n(x)\na|b\nab\naab\nx^y\nx$y\n*star\n[br]\na\\b\nabcabc\n",
}

func TestGrepGNU(t *testing.T) {
	cases := []gnuCase{
		{name: "plain", script: "grep apple a.txt"},
		{name: "stdin", script: "grep an", stdin: "banana\nkiwi\nmango\n"},
		{name: "dash stdin", script: "grep -H an - a.txt", stdin: "banana\nkiwi\n"},
		{name: "two files", script: "grep e a.txt b.txt"},
		{name: "no match", script: "grep zzz a.txt"},
		{name: "missing", script: "grep apple nosuch a.txt"},
		{name: "missing -s", script: "grep -s apple nosuch a.txt"},
		{name: "missing -q match", script: "grep -q apple nosuch a.txt"},
		{name: "missing -q", script: "grep -q apple a.txt nosuch"},
		{name: "dir", script: "grep apple d"},
		{name: "ignore case", script: "grep -i APPLE a.txt"},
		{name: "ignore case long", script: "grep --ignore-case apple a.txt"},
		{name: "invert", script: "grep -v a a.txt"},
		{name: "invert long", script: "grep --invert-match e b.txt"},
		{name: "line numbers", script: "grep -n e b.txt"},
		{name: "count", script: "grep -c apple a.txt b.txt"},
		{name: "count long", script: "grep --count -v apple a.txt"},
		{name: "count -h", script: "grep -ch e a.txt b.txt"},
		{name: "list", script: "grep -l apple a.txt b.txt c.txt"},
		{name: "list long", script: "grep --files-with-matches one a.txt b.txt"},
		{name: "list missing", script: "grep -L apple a.txt b.txt c.txt"},
		{name: "list missing long", script: "grep --files-without-match apple a.txt"},
		{name: "only", script: "grep -o 'ap*le' a.txt"},
		{name: "only many", script: "grep -o 'a.' a.txt"},
		{name: "only line numbers", script: "grep -on an a.txt"},
		{name: "only long", script: "grep --only-matching -E 'c[a-z]+' a.txt"},
		{name: "word", script: "grep -w apple a.txt"},
		{name: "word only", script: "grep -ow foo a.txt"},
		{name: "word repeated", script: "grep -ow foo", stdin: "foo foo,foo foofoo\n"},
		{name: "word punct", script: "grep -w '@foo'", stdin: "x @foo\nx@foo\n"},
		{name: "word long", script: "grep --word-regexp an a.txt"},
		{name: "line", script: "grep -x apple a.txt"},
		{name: "line long", script: "grep --line-regexp -e one -e two b.txt"},
		{name: "quiet", script: "grep -q apple a.txt"},
		{name: "quiet long", script: "grep --quiet zzz a.txt"},
		{name: "silent", script: "grep --silent apple a.txt"},
		{name: "with filename", script: "grep -H one b.txt"},
		{name: "no filename", script: "grep -h e a.txt b.txt"},
		{name: "no filename long", script: "grep --no-filename --with-filename one b.txt"},
		{name: "after", script: "grep -A1 -e three -e seven b.txt"},
		{name: "before", script: "grep -B2 -n -e four -e nine b.txt"},
		{name: "context", script: "grep -C1 -n -e three -e six b.txt"},
		{name: "context numeric", script: "grep -1 five b.txt"},
		{name: "context merge", script: "grep -C2 -e three -e five b.txt"},
		{name: "context long", script: "grep --context=1 --after-context=0 five b.txt"},
		{name: "context files", script: "grep -A1 -e one -e apple a.txt b.txt"},
		{name: "context only", script: "grep -o -C1 -e one -e six b.txt"},
		{name: "context bad", script: "grep -A x one b.txt"},
		{name: "max count", script: "grep -m2 e b.txt"},
		{name: "max count long", script: "grep --max-count=1 -c e b.txt"},
		{name: "max count context", script: "grep -n -m1 -A2 -e one -e two b.txt"},
		{name: "max count zero", script: "grep -m0 e b.txt"},
		{name: "max count zero -L", script: "grep -m0 -L e b.txt"},
		{name: "max count bad", script: "grep -m x e b.txt"},
		{name: "regexp", script: "grep -e one -e ten b.txt"},
		{name: "regexp long", script: "grep --regexp=one --regexp two b.txt"},
		{name: "regexp newline", script: "grep $'one\\nsix' b.txt"},
		{name: "pattern file", script: "grep -f pats a.txt b.txt"},
		{name: "pattern file long", script: "grep --file=pats -c b.txt"},
		{name: "pattern file empty", script: "grep -f empty b.txt"},
		{name: "pattern file empty -v", script: "grep -v -f empty b.txt"},
		{name: "pattern file missing", script: "grep -f nosuch b.txt"},
		{name: "pattern file stdin", script: "grep -f - b.txt", stdin: "two\nnine\n"},
		{name: "empty pattern", script: "grep '' c.txt b.txt"},
		{name: "no final newline", script: "grep end c.txt"},
		{name: "fixed", script: "grep -F 'a+b' re.txt"},
		{name: "fixed long", script: "grep --fixed-strings -e '(x)' -e '[br]' re.txt"},
		{name: "fixed icase", script: "grep -Fi APPLE a.txt"},
		{name: "fixed word", script: "grep -Fw foo a.txt"},
		{name: "extended", script: "grep -E 'a+b|\\(x\\)' re.txt"},
		{name: "extended long", script: "grep --extended-regexp 'a{2}b' re.txt"},
		{name: "extended literal brace", script: "grep -E 'a{1' re.txt"},
		{name: "extended interval", script: "grep -oE 'a{,1}b' re.txt"},
		{name: "extended group", script: "grep -oE '(abc){2}' re.txt"},
		{name: "extended star start", script: "grep -E '*star' re.txt"},
		{name: "extended close paren", script: "grep -E 'x)' re.txt"},
		{name: "basic", script: "grep 'a+b' re.txt"},
		{name: "basic long", script: "grep --basic-regexp 'a\\+b' re.txt"},
		{name: "basic group", script: "grep -o '\\(abc\\)\\{2\\}' re.txt"},
		{name: "basic alternation", script: "grep 'x)\\|a|b' re.txt"},
		{name: "basic braces", script: "grep 'a{1}' re.txt"},
		{name: "basic anchors", script: "grep -e 'x^y' -e 'x$y' re.txt"},
		{name: "basic star start", script: "grep '*star' re.txt"},
		{name: "basic question", script: "grep -x 'a\\?b' re.txt"},
		{name: "brackets", script: "grep '[[]br]' re.txt"},
		{name: "bracket backslash", script: "grep 'a[\\]b' re.txt"},
		{name: "bracket class", script: "grep -c '^[[:alpha:]]*$' re.txt"},
		{name: "word boundary", script: "grep -o '\\<a[a-z]*' a.txt"},
		{name: "stacked stars", script: "grep -E -o 'a**b' re.txt"},
		{name: "unmatched paren", script: "grep '\\(a' re.txt"},
		{name: "unmatched close", script: "grep 'a\\)' re.txt"},
		{name: "unmatched paren ere", script: "grep -E '(a' re.txt"},
		{name: "unmatched bracket", script: "grep '[a' re.txt"},
		{name: "unmatched brace", script: "grep 'a\\{1' re.txt"},
		{name: "bad interval", script: "grep -E 'a{2,1}' re.txt"},
		{name: "conflicting", script: "grep -E -F a re.txt"},
		{name: "no pattern", script: "grep"},
		{name: "clustered", script: "grep -inH apple a.txt"},
		{name: "clustered value", script: "grep -nA1 five b.txt"},
		{name: "double dash", script: "grep -- -x", stdin: "a-x\nb\n"},
		{name: "binary", script: "grep apple bin"},
		{name: "binary count", script: "grep -c e bin"},
		{name: "binary text part", script: "grep -c text bin"},
		{name: "binary list", script: "grep -l more bin a.txt"},
		{name: "binary -H", script: "grep -H apple bin a.txt"},
		{name: "binary stdin", script: "grep more", stdin: "x\x00more\n"},
		{name: "binary invert", script: "grep -v zzz bin"},
		{name: "high bytes", script: "grep -n apple hi.txt"},
		{name: "high bytes pattern", script: "grep -c caf hi.txt"},
		{name: "recursive", script: "grep -r apple d"},
		{name: "recursive long", script: "grep --recursive -n apple d/"},
		{name: "recursive implicit", script: "cd d && grep -r apple"},
		{name: "recursive dot", script: "cd d && grep -r apple ."},
		{name: "recursive file", script: "grep -r apple a.txt"},
		{name: "recursive include", script: "grep -r --include='*.go' apple d"},
		{name: "recursive exclude", script: "grep -r --exclude='*.go' --exclude=z.c apple d"},
		{name: "recursive include exclude", script: "grep -r --include='*.c' --exclude='z*' apple d"},
		{name: "recursive -l", script: "grep -rl tree d"},
		{name: "recursive -c", script: "grep -rc apple d/e"},
		{name: "dereference recursive", script: "grep -R apple d/e"},
		{name: "exclude command line", script: "grep --exclude='*.txt' apple a.txt d/x.go"},
		{name: "include command line", script: "grep --include='*.go' apple a.txt d/x.go"},
		{name: "color never", script: "grep --color=never apple a.txt"},
		{name: "colour auto", script: "grep --colour=auto -c apple a.txt"},
	}
	compareGNU(t, []kernel.Tool{cmdGrep}, withFiles(cases, grepFiles))
}

func TestGrepSymlinks(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"d/real.txt": "apple\n", "other/o.txt": "apple\n"})
	if err := os.Symlink("real.txt", filepath.Join(dir, "d/link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../other", filepath.Join(dir, "d/sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(dir, "other/loop")); err != nil {
		t.Fatal(err)
	}
	res := run(t, []kernel.Tool{cmdGrep}, dir, "", "grep -r apple d")
	if res.Stdout != "d/real.txt:apple\n" || res.ExitCode != 0 {
		t.Errorf("-r: %q %d %q", res.Stdout, res.ExitCode, res.Stderr)
	}
	res = run(t, []kernel.Tool{cmdGrep}, dir, "", "grep -R apple d")
	want := "d/link.txt:apple\nd/real.txt:apple\nd/sub/o.txt:apple\n"
	loops := "grep: d/sub/loop/d: warning: recursive directory loop\ngrep: d/sub/loop/other: warning: recursive directory loop\n"
	if res.Stdout != want || res.ExitCode != 0 || res.Stderr != loops {
		t.Errorf("-R: %q %d %q", res.Stdout, res.ExitCode, res.Stderr)
	}
}

func TestGrepBackreference(t *testing.T) {
	res := run(t, []kernel.Tool{cmdGrep}, t.TempDir(), "aa\n", `grep '\(a\)\1'`)
	want := "grep: backreference '\\1' is not supported: RE2 has no backreferences; allowed: (none)\n"
	if res.Stderr != want || res.ExitCode != 2 || res.Stdout != "" {
		t.Errorf("got %q %d", res.Stderr, res.ExitCode)
	}
}

func TestGrepSandbox(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("apple secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"in.txt": "apple\n", "d/f": "apple\n"})
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "d/abs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../"+filepath.Base(outside), filepath.Join(root, "d/rel")); err != nil {
		t.Fatal(err)
	}
	s := sandboxSession(t, root, []kernel.Tool{cmdGrep}, nil)
	for _, script := range []string{
		"grep apple " + filepath.Join(outside, "secret"),
		"grep apple ../" + filepath.Base(outside) + "/secret",
		"grep apple d/abs",
		"grep -R apple d",
		"grep -r apple /etc/passwd " + outside,
		"grep -f " + filepath.Join(outside, "secret") + " in.txt",
	} {
		res, err := s.Run(t.Context(), script, kernel.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Stdout, "secret") || strings.Contains(res.Stderr, "apple secret") {
			t.Errorf("%s: read outside the root: %q %q", script, res.Stdout, res.Stderr)
		}
		if res.ExitCode != 2 || !strings.Contains(res.Stderr, "grep: ") {
			t.Errorf("%s: status %d, stderr %q", script, res.ExitCode, res.Stderr)
		}
	}
}

func BenchmarkGrep(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		sb.WriteString("the quick brown fox jumps over the lazy dog line ")
		sb.WriteString(strings.Repeat("x", i%7))
		sb.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	k, err := kernel.New(kernel.Config{Tools: []kernel.Tool{cmdGrep, cmdSed}, Env: map[string]string{"LC_ALL": "C"}})
	if err != nil {
		b.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, DiscardSpills: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, script := range []string{"grep -c xxx f", "grep -c 'o.*z' f", "grep -ci FOX f", "grep -cw lazy f", "sed -n 's/fox/cat/p' f | grep -c cat", "sed -n '$=' f"} {
		b.Run(script, func(b *testing.B) {
			for b.Loop() {
				res, err := s.Run(b.Context(), script, kernel.RunOptions{})
				if err != nil || res.ExitCode != 0 {
					b.Fatal(err, res.Stderr)
				}
			}
		})
	}
}
