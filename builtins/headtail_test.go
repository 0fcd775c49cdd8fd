package builtins

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func headTailFiles() map[string]string {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	var big strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&big, "row %d %s\n", i, strings.Repeat("x", i%50))
	}
	return map[string]string{
		"f":      b.String(),
		"short":  "a\nb\nc",
		"bin":    "x\x00y\x00\xff\xfe\n\x00z",
		"nul":    "one\x00two\x00three\x00four",
		"empty":  "",
		"big":    big.String(),
		"d/":     "",
		"one":    "single",
		"blanks": "\n\n\n",
	}
}

func TestHeadGNU(t *testing.T) {
	t.Parallel()
	cases := []gnuCase{
		{name: "default", script: "head f"},
		{name: "stdin", script: "head", stdin: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"},
		{name: "dash", script: "head -n 2 - f", stdin: "s1\ns2\ns3\n"},
		{name: "n", script: "head -n 3 f"},
		{name: "n attached", script: "head -n3 f"},
		{name: "lines long", script: "head --lines=4 f"},
		{name: "lines long word", script: "head --lines 4 f"},
		{name: "lines abbreviated", script: "head --li=4 f"},
		{name: "n zero", script: "head -n 0 f"},
		{name: "n minus", script: "head -n -25 f"},
		{name: "n minus all", script: "head -n -100 f short"},
		{name: "n minus zero", script: "head -n -0 short"},
		{name: "n minus partial", script: "head -n -1 short one"},
		{name: "n minus big", script: "head -n -4990 big"},
		{name: "n plus", script: "head -n +2 f"},
		{name: "n suffix", script: "head -n 1k big | wc -l"},
		{name: "numeric", script: "head -5 f"},
		{name: "numeric then n", script: "head -5 -n 2 f"},
		{name: "c", script: "head -c 10 f"},
		{name: "bytes long", script: "head --bytes=7 f short"},
		{name: "c minus", script: "head -c -150 f"},
		{name: "c minus big", script: "head -c -1000 big | tail -c 100"},
		{name: "c K", script: "head -c 1K big"},
		{name: "c kB", script: "head -c 2kB big"},
		{name: "c KiB", script: "head -c 1KiB big"},
		{name: "c b", script: "head -c 1b big"},
		{name: "c m", script: "head -c 1m big | wc -c"},
		{name: "c MB", script: "head -c 1MB big | wc -c"},
		{name: "c and n, last wins", script: "head -c 5 -n 2 f"},
		{name: "n and c, last wins", script: "head -n 2 -c 5 f"},
		{name: "invalid lines", script: "head -n x f"},
		{name: "invalid bytes", script: "head -c 1Q f"},
		{name: "invalid suffix", script: "head -c 1g f"},
		{name: "invalid empty", script: "head -n '' f"},
		{name: "too large", script: "head -n 99999999999999999999999 f"},
		{name: "too large suffix", script: "head -c 16E f"},
		{name: "headers", script: "head -n 2 f short"},
		{name: "quiet", script: "head -q -n 2 f short"},
		{name: "quiet long", script: "head --quiet -n 2 f short"},
		{name: "silent", script: "head --silent -n 2 f short"},
		{name: "verbose", script: "head -v -n 1 f"},
		{name: "verbose long", script: "head --verbose -n 1 -"},
		{name: "quiet verbose", script: "head -qv -n 1 f short"},
		{name: "zero", script: "head -z -n 2 nul"},
		{name: "zero long", script: "head --zero-terminated -n -1 nul"},
		{name: "zero c", script: "head -zc 5 nul"},
		{name: "binary", script: "head -n 1 bin; head -c 3 bin; head -n -1 bin"},
		{name: "empty", script: "head empty; head -n -1 empty; head -c -1 empty"},
		{name: "missing", script: "head -n 1 f nope short"},
		{name: "missing only", script: "head nope"},
		{name: "directory", script: "head -n 1 f d short"},
		{name: "dashdash", script: "head -n 1 -- f"},
		{name: "clustered", script: "head -vn1 f"},
		{name: "blanks", script: "head -n 2 blanks"},
		{name: "big", script: "head -n 4000 big"},
	}
	compareHeadTail(t, cases)
}

func TestTailGNU(t *testing.T) {
	t.Parallel()
	cases := []gnuCase{
		{name: "default", script: "tail f"},
		{name: "stdin", script: "tail", stdin: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"},
		{name: "dash", script: "tail -n 2 f -", stdin: "s1\ns2\ns3\n"},
		{name: "n", script: "tail -n 3 f"},
		{name: "n attached", script: "tail -n3 f"},
		{name: "lines long", script: "tail --lines=4 f"},
		{name: "n zero", script: "tail -n 0 f"},
		{name: "n minus", script: "tail -n -2 f"},
		{name: "n plus", script: "tail -n +28 f"},
		{name: "n plus zero", script: "tail -n +0 short"},
		{name: "n plus one", script: "tail -n +1 short"},
		{name: "n plus past", script: "tail -n +100 f"},
		{name: "n partial", script: "tail -n 1 short; tail -n 2 one"},
		{name: "n big", script: "tail -n 4000 big"},
		{name: "n plus big", script: "tail -n +4900 big"},
		{name: "n suffix", script: "tail -n 1k big"},
		{name: "numeric", script: "tail -5 f"},
		{name: "c", script: "tail -c 10 f"},
		{name: "bytes long", script: "tail --bytes=7 f short"},
		{name: "c plus", script: "tail -c +150 f"},
		{name: "c plus zero", script: "tail -c +0 short"},
		{name: "c K", script: "tail -c 1K big"},
		{name: "c kB", script: "tail -c 2kB big"},
		{name: "c big", script: "tail -c 100000 big"},
		{name: "c and n, last wins", script: "tail -c 5 -n 2 f"},
		{name: "invalid lines", script: "tail -n x f"},
		{name: "invalid plus space", script: "tail -n '+ 1' f"},
		{name: "invalid bytes", script: "tail -c 1w f"},
		{name: "too large", script: "tail -n 99999999999999999999999 f"},
		{name: "headers", script: "tail -n 2 f short"},
		{name: "quiet", script: "tail -q -n 2 f short"},
		{name: "silent", script: "tail --silent -n 2 f short"},
		{name: "verbose", script: "tail -v -n 1 f"},
		{name: "verbose stdin", script: "tail --verbose -n 1", stdin: "a\nb\n"},
		{name: "zero", script: "tail -z -n 2 nul"},
		{name: "zero long", script: "tail --zero-terminated -n +2 nul"},
		{name: "binary", script: "tail -n 1 bin; tail -c 3 bin; tail -n +2 bin"},
		{name: "empty", script: "tail empty; tail -n +2 empty; tail -c 1 empty"},
		{name: "blanks", script: "tail -n 2 blanks"},
		{name: "missing", script: "tail -n 1 f nope short"},
		{name: "directory", script: "tail -n 1 f d short"},
		{name: "dashdash", script: "tail -n 1 -- f"},
		{name: "clustered", script: "tail -qn1 f short"},
	}
	compareHeadTail(t, cases)
}

// compareHeadTail compares head and tail's cases with GNU's, each on its
// own copy of the files; only the cases that name it get the big one.
func compareHeadTail(t *testing.T, cases []gnuCase) {
	t.Helper()
	for i := range cases {
		cases[i].files = headTailFiles()
		if !strings.Contains(cases[i].script, "big") {
			delete(cases[i].files, "big")
		}
	}
	compareGNU(t, []kernel.Tool{cmdHead, cmdTail}, cases)
}

func TestHeadTailSandbox(t *testing.T) {
	for _, script := range []string{"head -n 1 in ../secret in", "tail -n 1 in abs-link in", "head -c 3 in /etc/passwd in", "tail -c 3 in rel-link in"} {
		res, _ := secretRun(t, []kernel.Tool{cmdHead, cmdTail}, map[string]string{"in": "in\n"}, "SECRET\n", script)
		if strings.Contains(res.Stdout, "SECRET") || strings.Contains(res.Stdout, "root:") || res.ExitCode != 2 {
			t.Errorf("%s: stdout %q status %d", script, res.Stdout, res.ExitCode)
		}
		if !strings.Contains(res.Stderr, "outside the sandbox root") {
			t.Errorf("%s: stderr %q", script, res.Stderr)
		}
	}
}
