package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

var sedFiles = map[string]string{
	"ten":     "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
	"words":   "hello world\nfoo bar baz\nHello again\n\nthe end\n",
	"nonl":    "first\nlast without newline",
	"bin":     "a\x00b\nc\xffd\n",
	"nul":     "one\x00two\x00three\x00",
	"script":  "s/o/0/g\n2d\n",
	"scriptn": "#n\n/foo/p\n",
	"paths":   "/usr/local/bin\n/etc/passwd\n",
}

func TestSedGNU(t *testing.T) {
	cases := []gnuCase{
		{name: "substitute", script: "sed s/o/0/ words"},
		{name: "global", script: "sed s/o/0/g words"},
		{name: "nth", script: "sed s/o/0/2 words"},
		{name: "nth global", script: "sed 's/o/0/2g' words"},
		{name: "print flag", script: "sed -n 's/foo/X/p' words"},
		{name: "icase flag", script: "sed 's/hello/X/I' words"},
		{name: "icase lower", script: "sed 's/HELLO/X/ig' words"},
		{name: "ampersand", script: "sed 's/o\\+/[&]/g' words"},
		{name: "groups", script: "sed 's/\\(h\\)\\(e\\)/\\2\\1/' words"},
		{name: "groups ere", script: "sed -E 's/(\\w+) (\\w+)/\\2 \\1/' words"},
		{name: "groups -r", script: "sed -r 's/(o+)/<\\1>/g' words"},
		{name: "newline repl", script: "sed 's/ /\\n/g' words"},
		{name: "escaped delim", script: "sed 's/\\//|/g' paths"},
		{name: "other delim", script: "sed 's|/|:|g' paths"},
		{name: "escaped other delim", script: "sed 's|a\\|b|X|'", stdin: "a|b\n"},
		{name: "escaped dot delim", script: "sed 's.a\\.b.X.'", stdin: "axb\n"},
		{name: "empty matches", script: "sed 's/x*/-/g'", stdin: "abc\n"},
		{name: "empty match nth", script: "sed 's/l*/X/3'", stdin: "hello\n"},
		{name: "case conversion", script: "sed 's/\\(h\\)\\(ello\\)/\\u\\2\\U\\1x\\Ey/'", stdin: "hello\n"},
		{name: "case lower", script: "sed -E 's/(.*)/\\L\\1/'", stdin: "HeLLo\n"},
		{name: "escaped amp", script: "sed 's/o/\\&/'", stdin: "foo\n"},
		{name: "tab escape", script: "sed 's/ /\\t/'", stdin: "a b\n"},
		{name: "newline in regex", script: "sed 'N;s/\\n/,/'", stdin: "a\nb\nc\n"},
		{name: "delete", script: "sed 2d ten"},
		{name: "delete range", script: "sed 3,7d ten"},
		{name: "print", script: "sed -n 4p ten"},
		{name: "print twice", script: "sed p words"},
		{name: "last", script: "sed -n '$p' ten"},
		{name: "last of two", script: "sed -n '$p' ten words"},
		{name: "separate", script: "sed -s -n '$p' ten words"},
		{name: "separate long", script: "sed --separate -n '1p;$=' ten ten"},
		{name: "regex address", script: "sed -n '/o/p' words"},
		{name: "regex address icase", script: "sed -n '/hello/Ip' words"},
		{name: "custom regex delim", script: "sed -n '\\%/etc%p' paths"},
		{name: "regex range", script: "sed -n '/foo/,/end/p' words"},
		{name: "line to regex", script: "sed -n '1,/1/p' ten"},
		{name: "zero to regex", script: "sed -n '0,/1/p' ten"},
		{name: "step", script: "sed -n '0~3p' ten"},
		{name: "step first", script: "sed -n '2~4p' ten"},
		{name: "step zero", script: "sed -n '2~0p' ten"},
		{name: "plus", script: "sed -n '/4/,+2p' ten"},
		{name: "tilde", script: "sed -n '/5/,~4p' ten"},
		{name: "backwards range", script: "sed -n '5,2p' ten"},
		{name: "range to last", script: "sed -n '8,$p' ten"},
		{name: "negate", script: "sed '2,8!d' ten"},
		{name: "negate space", script: "sed -n '/o/ !p' words"},
		{name: "block", script: "sed -n '/o/{s/o/0/;p}' words"},
		{name: "nested block", script: "sed -n '2,5{/4/!{p}}' ten"},
		{name: "block semicolon", script: "sed -n '/a/{p;p;}'", stdin: "a\nb\n"},
		{name: "line number", script: "sed -n '$=' ten"},
		{name: "equals", script: "sed '2,3=' words"},
		{name: "quit", script: "sed 3q ten"},
		{name: "quit code", script: "sed '2q5' ten"},
		{name: "Quit", script: "sed '3Q' ten"},
		{name: "Quit code", script: "sed '/5/Q7' ten"},
		{name: "append", script: "sed '2a hello' ten"},
		{name: "append classic", script: "sed '2a\\\n   kept\\\nsecond' ten"},
		{name: "append backslash", script: "sed '$a\\  foo' ten"},
		{name: "append escape", script: "sed '1a x\\ty'", stdin: "a\n"},
		{name: "append -e", script: "sed -e '1a\\' -e 'joined'", stdin: "a\nb\n"},
		{name: "insert", script: "sed '1i\\\nhello\\\nworld' ten"},
		{name: "insert one line", script: "sed '/5/i five' ten"},
		{name: "change", script: "sed '2c\\changed' ten"},
		{name: "change range", script: "sed '2,9c\\changed' ten"},
		{name: "change one liner", script: "sed '$c last' ten"},
		{name: "append and quit", script: "sed -e '1a after' -e 1q ten"},
		{name: "y", script: "sed 'y/abc/xyz/'", stdin: "aabbcc\n"},
		{name: "y escapes", script: "sed 'y/a\\/b/\\n\\\\x/'", stdin: "a/b\n"},
		{name: "next", script: "sed -n 'n;p' ten"},
		{name: "next at end", script: "sed 'n;s/a/X/'", stdin: "a\n"},
		{name: "Next", script: "sed 'N;s/\\n/-/' ten"},
		{name: "Next at end", script: "sed 'N;s/a/X/'", stdin: "a\n"},
		{name: "Next not last", script: "sed '$!N;s/\\n/ /'", stdin: "a\nb\nc\n"},
		{name: "join all", script: "sed ':a;N;$!ba;s/\\n/,/g' ten"},
		{name: "P D", script: "sed '$!N;P;D' ten"},
		{name: "D join", script: "sed -n '$!N;/\\n1/!P;D' ten"},
		{name: "hold", script: "sed -n 'h;n;G;p' ten"},
		{name: "reverse", script: "sed -n '1!G;h;$p' ten"},
		{name: "exchange", script: "sed 'x;$!d;x' ten"},
		{name: "H and g", script: "sed -n 'H;${g;s/\\n/+/g;p}' ten"},
		{name: "branch", script: "sed 'b end;s/a/X/;:end'", stdin: "a\n"},
		{name: "branch to end", script: "sed -n '/2/b;p' ten"},
		{name: "test", script: "sed ':x;s/aa/a/;tx'", stdin: "aaaaa\n"},
		{name: "test not", script: "sed 's/1/one/;T;s/$/!/' ten"},
		{name: "label loop", script: "sed -n ':x;/a/{s/a/b/;bx};p'", stdin: "aaa\n"},
		{name: "zap", script: "sed '2z' ten"},
		{name: "filename", script: "sed -n '1F' ten - ", stdin: "x\n"},
		{name: "comment", script: "sed -n '# a comment\n3p'  ten"},
		{name: "hash n", script: "sed '#n\n3p' ten"},
		{name: "script file", script: "sed -f script words"},
		{name: "script file long", script: "sed --file=script words"},
		{name: "script file hash n", script: "sed -f scriptn words"},
		{name: "script file missing", script: "sed -f nosuch words"},
		{name: "expressions", script: "sed -e 2d -e 4d ten"},
		{name: "expression long", script: "sed --expression=2d --expression 's/1/X/' ten"},
		{name: "quiet long", script: "sed --quiet 3p ten"},
		{name: "silent", script: "sed --silent 3p ten"},
		{name: "extended long", script: "sed --regexp-extended 's/(1|5)+/X/' ten"},
		{name: "bre literal plus", script: "sed 's/a+/X/'", stdin: "aa+\n"},
		{name: "ere interval", script: "sed -E 's/a{2}/X/'", stdin: "aaa\n"},
		{name: "bre interval", script: "sed 's/a\\{2\\}/X/'", stdin: "aaa\n"},
		{name: "empty regex", script: "sed -n '/o/s//0/gp' words"},
		{name: "no newline", script: "sed s/t/T/ nonl"},
		{name: "no newline p", script: "sed p nonl"},
		{name: "no newline then file", script: "sed '' nonl ten"},
		{name: "no newline append", script: "sed '$a end' nonl"},
		{name: "binary", script: "sed 's/b/B/;s/d/D/' bin"},
		{name: "null data", script: "sed -z 's/^t/T/' nul"},
		{name: "null data long", script: "sed --null-data -n '2p' nul"},
		{name: "stdin dash", script: "sed 's/x/y/' - ten", stdin: "x\n"},
		{name: "missing file", script: "sed p nosuch ten"},
		{name: "only missing", script: "sed p nosuch"},
		{name: "clustered", script: "sed -ne 3p ten"},
		{name: "clustered En", script: "sed -nE '/^(1|2)$/p' ten"},
		{name: "double dash", script: "sed -n -- 2p ten"},
		{name: "unknown command", script: "sed k ten"},
		{name: "unterminated s", script: "sed 's/a/b' ten"},
		{name: "unknown s option", script: "sed 's/a/b/x' ten"},
		{name: "multiple g", script: "sed 's/a/b/gg' ten"},
		{name: "multiple p", script: "sed 's/a/b/pp' ten"},
		{name: "zero nth", script: "sed 's/a/b/0' ten"},
		{name: "y lengths", script: "sed 'y/a/bc/' ten"},
		{name: "y unterminated", script: "sed 'y/a/' ten"},
		{name: "unmatched brace", script: "sed '{p' ten"},
		{name: "unexpected brace", script: "sed 'p}' ten"},
		{name: "lone brace", script: "sed '}' ten"},
		{name: "missing label", script: "sed bfoo ten"},
		{name: "extra chars", script: "sed pq ten"},
		{name: "a without text", script: "sed a ten"},
		{name: "label address", script: "sed 1:a ten"},
		{name: "empty label", script: "sed : ten"},
		{name: "bad regex", script: "sed 's/\\(a/x/' ten"},
		{name: "bad reference", script: "sed 's/a/\\1/' ten"},
		{name: "no previous regex", script: "sed 's//x/' ten"},
	}
	compareGNU(t, []kernel.Tool{cmdSed}, withFiles(cases, sedFiles))
}

func TestSedInPlaceGNU(t *testing.T) {
	cases := []gnuCase{
		{name: "in place", script: "sed -i 's/o/0/g' words ten; cat words ten"},
		{name: "in place long", script: "sed --in-place -n 2p ten; cat ten"},
		{name: "in place separate last", script: "sed -i '$d' ten words; cat ten words"},
		{name: "in place quit", script: "sed -i 3q ten words; cat ten words"},
		{name: "in place missing", script: "sed -i p nosuch ten; cat ten"},
		{name: "in place mode", script: "chmod 751 ten; sed -i 1d ten; stat -c %a ten; ls"},
		{name: "in place dir", script: "mkdir d; sed -i p d"},
		{name: "in place no newline", script: "sed -i s/l/L/ nonl; cat nonl"},
	}
	for i := range cases {
		cases[i].files = sedFiles
	}
	compareGNU(t, []kernel.Tool{cmdSed}, cases)
}

func TestSedRefusals(t *testing.T) {
	for _, tc := range []struct{ script, line string }{
		{`sed 's/\(a\)\1/x/'`, "sed: backreference '\\1' is not supported: RE2 has no backreferences; allowed: (none)\n"},
		{`sed 'w out'`, "sed: command 'w' is not supported; allowed: " + kernel.Pool(sedCommands) + "\n"},
		{`sed 's/a/b/w out'`, "sed: the flag 'w' of s is not supported; allowed: I, N, g, i, p\n"},
		{`sed -i.bak p f`, "sed: unknown flag '-.'; allowed: " + kernel.Pool(cmdSed.pool()) + "\n"},
	} {
		res := run(t, []kernel.Tool{cmdSed}, t.TempDir(), "a\n", tc.script)
		if res.Stderr != tc.line || res.ExitCode != 2 || res.Stdout != "" {
			t.Errorf("%s: %q %d, want %q", tc.script, res.Stderr, res.ExitCode, tc.line)
		}
	}
}

func TestSedSandbox(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"in.txt": "a\n"})
	if err := os.Symlink(secret, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	s := sandboxSession(t, root, []kernel.Tool{cmdSed}, nil)
	for _, script := range []string{
		"sed p " + secret,
		"sed p ../" + filepath.Base(outside) + "/secret",
		"sed p link",
		"sed -i s/secret/pwned/ " + secret,
		"sed -i s/secret/pwned/ link",
		"sed -f " + secret + " in.txt",
	} {
		res, err := s.Run(t.Context(), script, kernel.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Stdout, "secret") {
			t.Errorf("%s: read outside the root: %q", script, res.Stdout)
		}
		if res.ExitCode == 0 || !strings.HasPrefix(res.Stderr, "sed: ") {
			t.Errorf("%s: status %d, stderr %q", script, res.ExitCode, res.Stderr)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret\n" {
		t.Errorf("outside file changed: %q", b)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside directory gained files: %v", entries)
	}
}
