package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestUniqGNU(t *testing.T) {
	in := "a\na\nA\nb\nb\nb\nc\n a x\n b x\n\tc x\nfoo 1\nfoo 2\nFOO 2\nxa1\nya1\nya2\n\x00\xff\n\x00\xff\nend"
	files := map[string]string{"f": in, "z": "a\x00a\x00b\x00c\x00c", "g": "1\n1\n"}
	cases := []gnuCase{
		{name: "plain", script: "uniq f", files: files},
		{name: "stdin", script: "uniq", stdin: in},
		{name: "stdin-dash", script: "uniq -", stdin: in},
		{name: "count", script: "uniq -c f", files: files},
		{name: "count-long", script: "uniq --count f", files: files},
		{name: "repeated", script: "uniq -d f", files: files},
		{name: "repeated-long", script: "uniq --repeated f", files: files},
		{name: "unique", script: "uniq -u f", files: files},
		{name: "unique-long", script: "uniq --unique f", files: files},
		{name: "du", script: "uniq -du f", files: files},
		{name: "cd", script: "uniq -cd f", files: files},
		{name: "icase", script: "uniq -i f", files: files},
		{name: "icase-long", script: "uniq --ignore-case -c f", files: files},
		{name: "fields", script: "uniq -f1 f", files: files},
		{name: "fields-long", script: "uniq --skip-fields=1 -c f", files: files},
		{name: "fields-many", script: "uniq -f 99999999999999999999999 f", files: files},
		{name: "chars", script: "uniq -s 1 f", files: files},
		{name: "chars-long", script: "uniq --skip-chars 2 f", files: files},
		{name: "check", script: "uniq -w 2 f", files: files},
		{name: "check-long", script: "uniq --check-chars=1 -c f", files: files},
		{name: "combined", script: "uniq -f1 -s1 -w1 -ic f", files: files},
		{name: "zero", script: "uniq -z -c z", files: files},
		{name: "zero-long", script: "uniq --zero-terminated z", files: files},
		{name: "output", script: "uniq f out; cat out", files: files},
		{name: "output-dash", script: "uniq f -", files: files},
		{name: "dashdash", script: "uniq -- g", files: files},
		{name: "missing", script: "uniq nosuch", files: files},
		{name: "directory", script: "uniq d/", files: map[string]string{"d/": ""}},
		{name: "extra", script: "uniq f o p", files: files},
		{name: "bad-fields", script: "uniq -f x f", files: files},
		{name: "bad-chars", script: "uniq -s -1 f", files: files},
		{name: "bad-check", script: "uniq -w x f", files: files},
		{name: "empty", script: "uniq", stdin: ""},
	}
	compareGNU(t, []kernel.Tool{cmdUniq}, cases)
}

func TestUniqSandbox(t *testing.T) {
	parent, root := secretTree(t, map[string]string{"ok": "fine:y\n"}, "SECRET:x\n")
	secret := filepath.Join(parent, "secret")
	for _, op := range []string{"/etc/passwd", "../secret", "abs-link", "rel-link"} {
		res := sandboxRun(t, []kernel.Tool{cmdUniq}, root, "uniq "+op)
		if res.ExitCode != 2 || res.Stdout != "" || !strings.Contains(res.Stderr, "outside the sandbox root") {
			t.Errorf("uniq %s: status %d stdout %q stderr %q", op, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	for _, op := range []string{"../out", filepath.Join(parent, "out2")} {
		res := sandboxRun(t, []kernel.Tool{cmdUniq}, root, "uniq ok "+op)
		if res.ExitCode != 2 || !strings.Contains(res.Stderr, "outside the sandbox root") {
			t.Errorf("uniq ok %s: status %d stderr %q", op, res.ExitCode, res.Stderr)
		}
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 2 {
		t.Errorf("outside the root: %v", entries)
	}
	if b, _ := os.ReadFile(secret); string(b) != "SECRET:x\n" {
		t.Errorf("secret changed: %q", b)
	}
}
