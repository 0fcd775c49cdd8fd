package builtins

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestDiffGNU(t *testing.T) {
	files := map[string]string{
		"a":     "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
		"b":     "one\nTWO\nthree\nfour\nfive\nsix\nseven\nnine\nten\neleven\n",
		"same":  "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
		"noeol": "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten",
		"case":  "ONE\ntwo\nThree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
		"space": "one\ntwo  \n  three\nfo ur\nfive\nsix\tx\nseven\neight\nnine\nten\n",
		"sp2":   "one\ntwo\n three\nfour\nfive\nsix  x\nseven\neight\nnine\nten\n",
		"empty": "",
		"bin":   "x\x00y\n",
		"bin2":  "x\x00z\n",
		"d/":    "",
		"d/a":   "one\n",
	}
	lab := "--label A --label B "
	cases := []gnuCase{
		{name: "normal", script: "diff a b", files: files},
		{name: "same", script: "diff a same", files: files},
		{name: "noeol", script: "diff a noeol", files: files},
		{name: "noeol-rev", script: "diff noeol b", files: files},
		{name: "unified", script: "diff -u " + lab + "a b", files: files},
		{name: "unified-noeol", script: "diff -u " + lab + "noeol b", files: files},
		{name: "unified-U1", script: "diff -U1 " + lab + "a b", files: files},
		{name: "unified-U0", script: "diff -U 0 " + lab + "a b", files: files},
		{name: "unified-long-eq", script: "diff --unified=2 --label=A --label=B a b", files: files},
		{name: "unified-empty", script: "diff -u " + lab + "empty a", files: files},
		{name: "unified-to-empty", script: "diff -u " + lab + "a empty", files: files},
		{name: "normal-empty", script: "diff empty a", files: files},
		{name: "brief", script: "diff -q a b", files: files},
		{name: "brief-long", script: "diff --brief a same", files: files},
		{name: "icase", script: "diff -i a case", files: files},
		{name: "icase-long", script: "diff --ignore-case a case", files: files},
		{name: "icase-brief", script: "diff -qi a case", files: files},
		{name: "all-space", script: "diff -w a space", files: files},
		{name: "all-space-long", script: "diff --ignore-all-space sp2 space", files: files},
		{name: "space-change", script: "diff -b a space", files: files},
		{name: "space-change-long", script: "diff --ignore-space-change sp2 space", files: files},
		{name: "clustered", script: "diff -ibu " + lab + "a space", files: files},
		{name: "stdin", script: "diff - a", stdin: "one\n2\n", files: files},
		{name: "stdin-second", script: "diff -u --label x --label y a -", stdin: "one\n2\n", files: files},
		{name: "dashdash", script: "diff -- a b", files: files},
		{name: "binary", script: "diff bin bin2", files: files},
		{name: "binary-same", script: "diff bin bin", files: files},
		{name: "binary-brief", script: "diff -q bin a", files: files},
		{name: "text", script: "diff -a bin bin2", files: files},
		{name: "text-long", script: "diff --text -u " + lab + "bin bin2", files: files},
		{name: "dir-file", script: "diff d a", files: files},
		{name: "file-dir", script: "diff b d", files: files},
		{name: "missing", script: "diff nosuch a", files: files},
		{name: "missing-both", script: "diff nosuch nosuch2", files: files},
		{name: "new-file", script: "diff -N a nosuch", files: files},
		{name: "new-file-long", script: "diff --new-file -u --label A --label B nosuch a", files: files},
		{name: "no-operands", script: "diff"},
		{name: "one-operand", script: "diff a", files: files},
		{name: "extra", script: "diff a b c", files: files},
		{name: "bad-context", script: "diff -U x a b", files: files},
	}
	compareGNU(t, []kernel.Tool{cmdDiff}, cases)
}

// TestDiffTimestamps compares the unified headers, timestamps included.
func TestDiffTimestamps(t *testing.T) {
	files := map[string]string{"a": "1\n2\n", "b": "1\n3\n"}
	compareGNU(t, []kernel.Tool{cmdDiff}, []gnuCase{
		{name: "headers", script: "touch -d '2020-01-02 03:04:05.123456789' a b; diff -u a b", files: files},
	})
}

// TestDiffRandomEdits diffs files against many small random edits of
// themselves, with lines drawn from a small alphabet so that repeated
// lines make the alignment ambiguous, and wants GNU's hunks exactly.
func TestDiffRandomEdits(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	alphabet := []string{"a", "b", "c", "x", "{", "}", "", "  return", "foo()"}
	var cases []gnuCase
	for n := 0; n < 60; n++ {
		size := 5 + r.Intn(300)
		var orig []string
		for i := 0; i < size; i++ {
			orig = append(orig, alphabet[r.Intn(len(alphabet))])
		}
		edited := append([]string(nil), orig...)
		for e := 1 + r.Intn(15); e > 0; e-- {
			p := r.Intn(len(edited) + 1)
			switch r.Intn(4) {
			case 0:
				edited = append(edited[:p], append([]string{alphabet[r.Intn(len(alphabet))]}, edited[p:]...)...)
			case 3:
				edited = append(edited[:p], append([]string{fmt.Sprint("new ", r.Intn(1000))}, edited[p:]...)...)
			case 1:
				if p < len(edited) {
					edited = append(edited[:p], edited[p+1:]...)
				}
			default:
				if p < len(edited) {
					edited[p] = alphabet[r.Intn(len(alphabet))]
				}
			}
		}
		files := map[string]string{"a": strings.Join(orig, "\n") + "\n", "b": strings.Join(edited, "\n") + "\n"}
		flags := []string{"", "-u --label A --label B", "-U1 --label A --label B", "-b"}[n%4]
		cases = append(cases, gnuCase{name: fmt.Sprint(n), script: "diff " + flags + " a b", files: files})
	}
	compareGNU(t, []kernel.Tool{cmdDiff}, cases)
}

func TestDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&a, "line %d of the file\n", i)
		if i%5000 == 17 {
			fmt.Fprintf(&b, "changed %d\n", i)
			continue
		}
		fmt.Fprintf(&b, "line %d of the file\n", i)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte(a.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "b"), []byte(b.String()), 0o644)
	res := run(t, []kernel.Tool{cmdDiff}, dir, "", "diff a b | head -4")
	if res.Stdout != "18c18\n< line 17 of the file\n---\n> changed 17\n" {
		t.Errorf("large: %q", res.Stdout)
	}
}

func TestDiffSandbox(t *testing.T) {
	_, root := secretTree(t, map[string]string{"ok": "fine:y\n"}, "SECRET:x\n")
	for _, op := range []string{"/etc/passwd", "../secret", "abs-link", "rel-link"} {
		res := sandboxRun(t, []kernel.Tool{cmdDiff}, root, "diff ok "+op)
		if res.ExitCode != 2 || strings.Contains(res.Stdout, "SECRET") || !strings.Contains(res.Stderr, "outside the sandbox root") {
			t.Errorf("diff ok %s: status %d stdout %q stderr %q", op, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
}
