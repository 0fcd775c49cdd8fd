package builtins

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func sortSample() string {
	r := rand.New(rand.NewSource(1))
	words := []string{"apple", "Apple", "banana", "b", "B", "_x", "10", "9", "-3", "-0", "0", "1.5", "1.50", "+2", " 7", "\t8", "2K", "1M", "3k", "1G", "-1K", "0.5M", "1.10", "1.9", "v1.2.10", "v1.2.9", "a~b", "a", ".", "..", ".hidden", "x.tar.gz", "x-1.0.tar", "", "é", "\x00z", "\xff"}
	var b strings.Builder
	for i := 0; i < 120; i++ {
		n := 1 + r.Intn(3)
		for j := 0; j < n; j++ {
			if j > 0 {
				b.WriteString([]string{" ", "  ", "\t", ":"}[r.Intn(4)])
			}
			b.WriteString(words[r.Intn(len(words))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestSortGNU(t *testing.T) {
	in := sortSample()
	files := map[string]string{"f": in, "g": "b\na\nc", "sorted": "a\nb\nb\nc\n", "z": "b\x00a\x00c\x00a"}
	cases := []gnuCase{
		{name: "plain", script: "sort f", files: files},
		{name: "stdin", script: "sort", stdin: in},
		{name: "stdin-dash", script: "sort - g", stdin: "q\n", files: files},
		{name: "two-files", script: "sort g f", files: files},
		{name: "reverse", script: "sort -r f", files: files},
		{name: "reverse-long", script: "sort --reverse g", files: files},
		{name: "numeric", script: "sort -n f", files: files},
		{name: "numeric-long", script: "sort --numeric-sort -r f", files: files},
		{name: "numeric-unique", script: "sort -nu f", files: files},
		{name: "numeric-stable", script: "sort -n -s f", files: files},
		{name: "unique", script: "sort -u f", files: files},
		{name: "unique-long", script: "sort --unique --ignore-case f", files: files},
		{name: "fold", script: "sort -f f", files: files},
		{name: "fold-unique", script: "sort -fu f", files: files},
		{name: "human", script: "sort -h f", files: files},
		{name: "human-long", script: "sort --human-numeric-sort -r f", files: files},
		{name: "version", script: "sort -V f", files: files},
		{name: "version-long", script: "sort --version-sort f", files: files},
		{name: "blanks", script: "sort -b f", files: files},
		{name: "blanks-long", script: "sort --ignore-leading-blanks -k2 f", files: files},
		{name: "dictionary", script: "sort -d f", files: files},
		{name: "dictionary-long", script: "sort --dictionary-order -f f", files: files},
		{name: "nonprinting", script: "sort -i f", files: files},
		{name: "nonprinting-long", script: "sort --ignore-nonprinting -u f", files: files},
		{name: "key", script: "sort -k2 f", files: files},
		{name: "key-range", script: "sort -k2,2 f", files: files},
		{name: "key-numeric", script: "sort -k2,2n -k1,1r f", files: files},
		{name: "key-chars", script: "sort -k1.2,1.3 f", files: files},
		{name: "key-chars-b", script: "sort -k2.2b,2.4 f", files: files},
		{name: "key-end-b", script: "sort -k1,1.2b f", files: files},
		{name: "key-zero-end", script: "sort -k2.2,2.0 f", files: files},
		{name: "key-reverse-only", script: "sort -k2r f", files: files},
		{name: "key-inherit", script: "sort -n -k2,2 f", files: files},
		{name: "key-inherit-reverse", script: "sort -r -k2,2 f", files: files},
		{name: "key-own-opts", script: "sort -r -k2,2n f", files: files},
		{name: "key-many", script: "sort -k3,3V -k2,2h -k1 f", files: files},
		{name: "key-long", script: "sort --key=2,2 --key 1 f", files: files},
		{name: "key-stable", script: "sort -s -k2,2 f", files: files},
		{name: "key-stable-long", script: "sort --stable -k1,1f f", files: files},
		{name: "key-unique", script: "sort -u -k2,2 f", files: files},
		{name: "key-dict-fold", script: "sort -k1,1df f", files: files},
		{name: "key-backwards", script: "sort -k2,1 f", files: files},
		{name: "tab", script: "sort -t: -k2 f", files: files},
		{name: "tab-long", script: "sort --field-separator=: -k2,2 -k1,1n f", files: files},
		{name: "tab-chars", script: "sort -t: -k2.2,3.1 f", files: files},
		{name: "tab-nul", script: "sort -t '\\0' -k2 f", files: files},
		{name: "clustered", script: "sort -nrk2 -t: f", files: files},
		{name: "clustered-u", script: "sort -rfu f", files: files},
		{name: "zero", script: "sort -z z", files: files},
		{name: "zero-long", script: "sort --zero-terminated -r z", files: files},
		{name: "output", script: "sort -o out f; cat out", files: files},
		{name: "output-long", script: "sort --output=out g; cat out", files: files},
		{name: "output-same", script: "sort -o f f; cat f", files: files},
		{name: "check-ok", script: "sort -c sorted", files: files},
		{name: "check-bad", script: "sort -c g", files: files},
		{name: "check-stdin", script: "sort --check", stdin: "b\na\n"},
		{name: "check-unique", script: "sort -cu sorted", files: files},
		{name: "check-extra", script: "sort -c a b"},
		{name: "check-missing", script: "sort -c nosuch"},
		{name: "incompatible-b", script: "sort -k1bnrV f", files: files},
		{name: "incompatible-f", script: "sort -bnVf f", files: files},
		{name: "dashdash", script: "sort -- g", files: files},
		{name: "missing", script: "sort nosuch", files: files},
		{name: "directory", script: "sort d/", files: map[string]string{"d/": ""}},
		{name: "no-newline", script: "sort g", files: files},
		{name: "empty", script: "sort", stdin: ""},
		{name: "key-zero", script: "sort -k0 f", files: files},
		{name: "key-char-zero", script: "sort -k1.0 f", files: files},
		{name: "key-stray", script: "sort -k1Z f", files: files},
		{name: "key-bad", script: "sort -k x f", files: files},
		{name: "key-bad-end", script: "sort -k 1, f", files: files},
		{name: "key-end-zero", script: "sort -k 1,0 f", files: files},
		{name: "multi-tab", script: "sort -t ab f", files: files},
		{name: "empty-tab", script: "sort -t '' f", files: files},
		{name: "incompatible", script: "sort -nh f", files: files},
		{name: "incompatible-key", script: "sort -k1n -k2Vh f", files: files},
		{name: "incompatible-d", script: "sort -dn f", files: files},
		{name: "incompatible-r", script: "sort -rnV f", files: files},
	}
	compareGNU(t, []kernel.Tool{cmdSort}, cases)
}

// TestSortNumbers compares -n, -h and -V on many generated numbers.
func TestSortNumbers(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var b strings.Builder
	for i := 0; i < 400; i++ {
		sign := []string{"", "", "-"}[r.Intn(3)]
		whole := []string{"", "0", "00", "1", "9", "10", "123", "0007"}[r.Intn(8)]
		frac := []string{"", ".", ".0", ".5", ".50", ".05", ".999"}[r.Intn(7)]
		unit := []string{"", "", "K", "k", "M", "G", "T", "P", "E", "Z", "Y", "x", "R", "Q"}[r.Intn(14)]
		fmt.Fprintf(&b, "%s%s%s%s %d\n", sign, whole, frac, unit, i%7)
	}
	files := map[string]string{"n": b.String()}
	compareGNU(t, []kernel.Tool{cmdSort}, []gnuCase{
		{name: "n", script: "sort -n n", files: files},
		{name: "h", script: "sort -h n", files: files},
		{name: "V", script: "sort -V n", files: files},
		{name: "k", script: "sort -k2,2n -k1,1h n", files: files},
	})
}

func TestSortSandbox(t *testing.T) {
	parent, root := secretTree(t, map[string]string{"ok": "fine:y\n"}, "SECRET:x\n")
	secret := filepath.Join(parent, "secret")
	for _, op := range []string{"/etc/passwd", "../secret", "abs-link", "rel-link"} {
		res := sandboxRun(t, []kernel.Tool{cmdSort}, root, "sort ok "+op)
		if res.ExitCode != 2 || res.Stdout != "" || !strings.Contains(res.Stderr, "outside the sandbox root") {
			t.Errorf("sort %s: status %d stdout %q stderr %q", op, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	res := sandboxRun(t, []kernel.Tool{cmdSort}, root, "sort -o ../out ok")
	if res.ExitCode != 2 || !strings.Contains(res.Stderr, "outside the sandbox root") {
		t.Errorf("sort -o ../out: status %d stderr %q", res.ExitCode, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(parent, "out")); err == nil {
		t.Error("sort wrote outside the root")
	}
	if b, _ := os.ReadFile(secret); string(b) != "SECRET:x\n" {
		t.Errorf("secret changed: %q", b)
	}
}

// TestSortBytesRadix checks the radix path of the plain byte-order sort
// against a comparison sort: short and empty lines, NUL and 0xff bytes,
// long shared prefixes, and runs of equal lines.
func TestSortBytesRadix(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	alphabet := []byte{0, 1, 'a', 'b', 'z', ' ', 0xfe, 0xff}
	for _, n := range []int{0, 1, 255, 256, 257, 3000} {
		lines := make([][]byte, n)
		for i := range lines {
			var l []byte
			switch r.Intn(4) {
			case 0: // a prefix longer than eight bytes shared by many lines
				l = []byte("shared-prefix-")
			case 1:
				l = []byte("shared-p")
			}
			for k := r.Intn(12); k > 0; k-- {
				l = append(l, alphabet[r.Intn(len(alphabet))])
			}
			lines[i] = l
		}
		want := slices.Clone(lines)
		slices.SortFunc(want, bytes.Compare)
		got := sortBytes(slices.Clone(lines))
		if !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("n=%d: sortBytes differs from a comparison sort", n)
		}
	}
}
