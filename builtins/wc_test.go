package builtins

import (
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestWcGNU(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a":     "hello world\nsecond line here\n",
		"b":     "no newline at all",
		"bin":   "a\x01b \x01 \x00 \xff\xfec\tx\ry\fz\vw\n\x80\x81",
		"tabs":  "\tx\n1234567\tx\n12345678\tx\n",
		"empty": "",
		"big":   strings.Repeat("word another word\n", 70000),
		"d/":    "",
	}
	cases := []gnuCase{
		{name: "default", script: "wc a"},
		{name: "two files", script: "wc a b"},
		{name: "many files", script: "wc a b bin tabs empty"},
		{name: "big width", script: "wc a big"},
		{name: "stdin", script: "wc", stdin: "one two\nthree\n"},
		{name: "stdin dash", script: "wc -", stdin: "one two\nthree\n"},
		{name: "stdin and file", script: "wc a -", stdin: "x y\n"},
		{name: "stdin redirected", script: "wc < big"},
		{name: "stdin redirected dash", script: "wc a - < big"},
		{name: "stdin redirected lines", script: "wc -l < a"},
		{name: "pipe", script: "cat a | wc"},
		{name: "lines", script: "wc -l a"},
		{name: "lines long", script: "wc --lines a b"},
		{name: "words", script: "wc -w bin"},
		{name: "words long", script: "wc --words a b"},
		{name: "bytes", script: "wc -c a"},
		{name: "bytes long", script: "wc --bytes a b"},
		{name: "chars", script: "wc -m bin"},
		{name: "chars long", script: "wc --chars a bin"},
		{name: "chars and bytes", script: "wc -cm a"},
		{name: "max line length", script: "wc -L tabs"},
		{name: "max line length long", script: "wc --max-line-length bin tabs"},
		{name: "all", script: "wc -lwmcL a bin tabs"},
		{name: "clustered", script: "wc -lw a b"},
		{name: "binary", script: "wc bin"},
		{name: "empty", script: "wc empty; wc -l empty"},
		{name: "missing first", script: "wc nope a"},
		{name: "missing later", script: "wc a nope b"},
		{name: "missing single", script: "wc -l nope"},
		{name: "directory", script: "wc d a"},
		{name: "directory lines", script: "wc -l d"},
		{name: "dashdash", script: "wc -- a"},
		{name: "big", script: "wc big; wc -l big; wc -c big"},
	}
	for i := range cases {
		cases[i].files = files
	}
	compareGNU(t, []kernel.Tool{cmdWc, cmdCat}, cases)
}

func TestWcSandbox(t *testing.T) {
	for _, operand := range []string{"/etc/passwd", "../secret", "abs-link", "rel-link"} {
		res, _ := secretRun(t, []kernel.Tool{cmdWc}, map[string]string{"in": "in\n"}, "SECRET\n", "wc in "+operand)
		if res.ExitCode != 2 || !strings.Contains(res.Stderr, "outside the sandbox root") || strings.Count(res.Stdout, "\n") != 2 {
			t.Errorf("wc %s: stdout %q stderr %q status %d", operand, res.Stdout, res.Stderr, res.ExitCode)
		}
	}
}
