package builtins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

var catFiles = map[string]string{
	"a":     "one\n\n\n\ntwo\tTAB\n\n",
	"b":     "no newline",
	"bin":   "x\x00y\x01\x1b\x7f\x80\x89\xff\xc3\xa9\tz\n\n\nM\n",
	"blank": "\n\n\nx\n",
	"d/":    "",
}

func TestCatGNU(t *testing.T) {
	t.Parallel()
	tools := []kernel.Tool{cmdCat}
	cases := []gnuCase{
		{name: "plain", script: "cat a b bin"},
		{name: "stdin", script: "cat", stdin: "from\nstdin"},
		{name: "dash", script: "cat a - b", stdin: "mid\n"},
		{name: "dash twice", script: "cat - a -", stdin: "in\n"},
		{name: "number", script: "cat -n a b blank"},
		{name: "number long", script: "cat --number a"},
		{name: "number nonblank", script: "cat -b a blank"},
		{name: "number nonblank long", script: "cat --number-nonblank a"},
		{name: "b beats n", script: "cat -nb a"},
		{name: "squeeze", script: "cat -s a blank"},
		{name: "squeeze long", script: "cat --squeeze-blank blank a"},
		{name: "squeeze number", script: "cat -sn a blank"},
		{name: "squeeze nonblank ends", script: "cat -sbE a blank"},
		{name: "ends", script: "cat -E a b"},
		{name: "ends long", script: "cat --show-ends a"},
		{name: "tabs", script: "cat -T a bin"},
		{name: "tabs long", script: "cat --show-tabs a"},
		{name: "nonprinting", script: "cat -v bin"},
		{name: "nonprinting long", script: "cat --show-nonprinting bin"},
		{name: "all", script: "cat -A bin a"},
		{name: "all long", script: "cat --show-all bin"},
		{name: "e", script: "cat -e bin"},
		{name: "t", script: "cat -t bin"},
		{name: "u", script: "cat -u a"},
		{name: "clustered", script: "cat -vnET bin"},
		{name: "continued line numbers", script: "cat -n b a b"},
		{name: "missing", script: "cat a nope b"},
		{name: "directory", script: "cat d a"},
		{name: "dashdash", script: "cat -- a"},
		{name: "long line", script: "cat -n big", files: map[string]string{"big": strings.Repeat("y", 200000) + "\nz\n"}},
	}
	compareGNU(t, tools, withFiles(cases, catFiles))
}

func TestCatSandbox(t *testing.T) {
	for _, operand := range []string{"/etc/passwd", "../secret", "abs-link", "rel-link", "$OUT/secret"} {
		res, _ := secretRun(t, []kernel.Tool{cmdCat}, map[string]string{"in": "inside\n"}, "SECRET\n", "cat in "+operand+" in")
		if res.Stdout != "inside\ninside\n" || res.ExitCode != 2 {
			t.Errorf("cat %s: stdout %q status %d", operand, res.Stdout, res.ExitCode)
		}
		if !strings.HasPrefix(res.Stderr, "cat: ") || !strings.Contains(res.Stderr, "outside the sandbox root") || strings.Contains(res.Stderr, "SECRET") {
			t.Errorf("cat %s: stderr %q", operand, res.Stderr)
		}
	}
}

func TestCatCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	call := &kernel.Call{Args: []string{"cat"}, Stdin: strings.NewReader(strings.Repeat("x\n", 100000)), Stdout: &out, Stderr: &out}
	if err := cmdCat.Run(ctx, call); err == nil {
		t.Errorf("cat with a cancelled context: no error")
	}
}

// TestCatSplice sends a file larger than a pipe through cat into a pipe,
// where Linux splices it: what comes out is the file, in order with what
// cat writes before and after it, read by a builtin and by a program.
func TestCatSplice(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() < 300<<10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	big := b.String()
	if err := os.WriteFile(filepath.Join(dir, "big"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(len("head\n" + big + "tail\n"))
	tools := []kernel.Tool{cmdCat, cmdWc}
	for _, script := range []string{
		"printf 'head\\n' | cat - big <(printf 'tail\\n') | wc -c",
		"{ printf 'head\\n'; cat big; printf 'tail\\n'; } | cat | wc -c",
	} {
		res := run(t, tools, dir, "", script)
		if got := strings.TrimSpace(res.Stdout); got != want || res.ExitCode != 0 {
			t.Errorf("%s: %q (exit %d, %q), want %s", script, got, res.ExitCode, res.Stderr, want)
		}
	}
	// The bytes themselves, through a program reading the pipe.
	res := run(t, []kernel.Tool{cmdCat}, dir, "", "cat big | cat -A >/dev/null; cat big | tail -c 20; cat big | head -c 12")
	if want := big[len(big)-20:] + big[:12]; res.Stdout != want {
		t.Errorf("tail and head of the spliced file: %q, want %q", res.Stdout, want)
	}
	// A reader that leaves early ends cat's splice with a write error,
	// not a hang.
	res = run(t, tools, dir, "", "set -o pipefail; cat big big big | head -c 5; echo \" $?\"")
	if res.Stdout != "line  1\n" {
		t.Errorf("cat into head: %q", res.Stdout)
	}
}
