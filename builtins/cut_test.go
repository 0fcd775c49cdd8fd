package builtins

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestCutGNU(t *testing.T) {
	in := "a:b:c:d\nnodelim\n\tx\ty\tz\none:two\n:lead\ntrail:\nlonger line here:2:3:4:5:6\n\x00\xff:\xfe\nlast:no:newline"
	files := map[string]string{"f": in, "g": "1\t2\t3\n4\t5\t6\n", "z": "a:b\x00c:d\x00e"}
	cases := []gnuCase{
		{name: "bytes", script: "cut -b 1-3,5 f", files: files},
		{name: "bytes-long", script: "cut --bytes=2- f", files: files},
		{name: "bytes-to", script: "cut -b -2 f", files: files},
		{name: "bytes-overlap", script: "cut -b 1-3,2-4,9- --output-delimiter=: f", files: files},
		{name: "bytes-adjacent", script: "cut -b 1,2,4 --output-delimiter=: f", files: files},
		{name: "bytes-out-empty", script: "cut -b 1,3 --output-delimiter= f", files: files},
		{name: "bytes-complement", script: "cut --complement -b 2-3 f", files: files},
		{name: "chars", script: "cut -c 2,4-5 f", files: files},
		{name: "chars-long", script: "cut --characters 1 f", files: files},
		{name: "blank-list", script: "cut -b '1 3' f", files: files},
		{name: "fields", script: "cut -d: -f2 f", files: files},
		{name: "fields-tab", script: "cut -f2,3 g f", files: files},
		{name: "fields-long", script: "cut --delimiter=: --fields=1,3- f", files: files},
		{name: "fields-only", script: "cut -s -d: -f1 f", files: files},
		{name: "fields-only-long", script: "cut --only-delimited -d : -f 2 f", files: files},
		{name: "fields-outdelim", script: "cut -d: -f1,2,4 --output-delimiter=XY f", files: files},
		{name: "fields-outdelim-empty", script: "cut -d: -f1,2 --output-delimiter '' f", files: files},
		{name: "fields-complement", script: "cut -d: --complement -f2 f", files: files},
		{name: "fields-beyond", script: "cut -d: -f9 f", files: files},
		{name: "fields-nul-delim", script: "cut -d '' -f1 z", files: files},
		{name: "clustered", script: "cut -sd: -f2 f", files: files},
		{name: "clustered-value", script: "cut -d: -sf1 f", files: files},
		{name: "zero", script: "cut -z -d: -f2 z", files: files},
		{name: "zero-long", script: "cut --zero-terminated -b1 z", files: files},
		{name: "stdin", script: "cut -f1 -", stdin: "a\tb\nc"},
		{name: "stdin-none", script: "cut -b1", stdin: "xyz\n"},
		{name: "dashdash", script: "cut -b1 -- f -", files: files, stdin: "q\n"},
		{name: "missing", script: "cut -b1 nosuch f", files: files},
		{name: "directory", script: "cut -b1 d/ f", files: map[string]string{"d/": "", "f": "x\n"}},
		{name: "no-list", script: "cut f", files: files},
		{name: "two-lists", script: "cut -b1 -f2 f", files: files},
		{name: "two-lists-same", script: "cut -f1 -f2 f", files: files},
		{name: "zero-pos", script: "cut -b0 f", files: files},
		{name: "zero-field", script: "cut -f 1,,2 f", files: files},
		{name: "empty-list", script: "cut -f '' f", files: files},
		{name: "bad-value", script: "cut -f 1,x2 f", files: files},
		{name: "bad-pos", script: "cut -b 2-x f", files: files},
		{name: "decreasing", script: "cut -f 3-1 f", files: files},
		{name: "decreasing-to", script: "cut -f -0 f", files: files},
		{name: "zero-from", script: "cut -f 0- f", files: files},
		{name: "lone-dash", script: "cut -f - f", files: files},
		{name: "double-dash-range", script: "cut -b 3-- f", files: files},
		{name: "double-dash-field", script: "cut -f 3-- f", files: files},
		{name: "too-large", script: "cut -b 99999999999999999999 f", files: files},
		{name: "too-large-field", script: "cut -f 1-99999999999999999999 f", files: files},
		{name: "long-delim", script: "cut -d ab -f1 f", files: files},
		{name: "delim-bytes", script: "cut -d: -b1 f", files: files},
		{name: "only-bytes", script: "cut -s -b1 f", files: files},
	}
	compareGNU(t, []kernel.Tool{cmdCut}, cases)
}

func TestCutLongLine(t *testing.T) {
	line := strings.Repeat("x", 200000) + ":y\n"
	res := run(t, []kernel.Tool{cmdCut}, t.TempDir(), line, "cut -d: -f2")
	if res.Stdout != "y\n" || res.ExitCode != 0 {
		t.Errorf("long line: %q status %d", res.Stdout, res.ExitCode)
	}
}

func TestCutSandbox(t *testing.T) {
	parent, root := secretTree(t, map[string]string{"ok": "fine:y\n"}, "SECRET:x\n")
	for _, op := range []string{"/etc/passwd", "../secret", filepath.Join(parent, "secret"), "abs-link", "rel-link"} {
		res := sandboxRun(t, []kernel.Tool{cmdCut}, root, "cut -d: -f1 ok "+op)
		if res.ExitCode != 2 || res.Stdout != "fine\n" || !strings.Contains(res.Stderr, "outside the sandbox root") || strings.Contains(res.Stdout+res.Stderr, "SECRET") || strings.Contains(res.Stdout, "root") {
			t.Errorf("cut %s: status %d stdout %q stderr %q", op, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
}
