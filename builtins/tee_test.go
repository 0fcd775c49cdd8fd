package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestTeeGNU(t *testing.T) {
	t.Parallel()
	files := map[string]string{"old": "kept\n", "d/": ""}
	cases := []gnuCase{
		{name: "stdout only", script: "tee", stdin: "a\nb"},
		{name: "files", script: "tee x y; cat x y", stdin: "line\n"},
		{name: "truncate", script: "tee old; cat old", stdin: "new\n"},
		{name: "append", script: "tee -a old; cat old", stdin: "more\n"},
		{name: "append long", script: "tee --append old x; cat old x", stdin: "more\n"},
		{name: "ignore interrupts", script: "tee -i x; cat x", stdin: "i\n"},
		{name: "ignore interrupts long", script: "tee --ignore-interrupts x; cat x", stdin: "i\n"},
		{name: "clustered", script: "tee -ai old; cat old", stdin: "c\n"},
		{name: "dash is a file", script: "tee -; cat ./-", stdin: "dash\n"},
		{name: "dashdash", script: "tee -- -a; cat ./-a", stdin: "dd\n"},
		{name: "missing directory", script: "tee nope/x y; cat y", stdin: "m\n"},
		{name: "directory", script: "tee d y; cat y", stdin: "m\n"},
		{name: "binary", script: "tee b; cat b", stdin: "\x00\xff\xfe\n\x01"},
		{name: "pipeline", script: "printf 'p\\nq\\n' | tee x | cat; cat x"},
		{name: "no stdin", script: "tee x < /dev/null; cat x"},
	}
	for i := range cases {
		cases[i].files = files
	}
	compareGNU(t, []kernel.Tool{cmdTee, cmdCat}, cases)
}

func TestTeeSandbox(t *testing.T) {
	res, parent := secretRun(t, []kernel.Tool{cmdTee}, nil, "SECRET\n", "echo pwned | tee inside ../escaped $OUT/abs abs-link rel-link /tmp/shelter-tee-escape")
	if res.ExitCode != 2 || res.Stdout != "pwned\n" {
		t.Errorf("stdout %q status %d", res.Stdout, res.ExitCode)
	}
	if got := strings.Count(res.Stderr, "outside the sandbox root"); got != 5 {
		t.Errorf("stderr %q: want 5 refusals", res.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(parent, "root", "inside")); err != nil || string(b) != "pwned\n" {
		t.Errorf("inside: %q %v", b, err)
	}
	for _, p := range []string{filepath.Join(parent, "escaped"), filepath.Join(parent, "abs"), "/tmp/shelter-tee-escape"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written outside the root", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(parent, "secret")); string(b) != "SECRET\n" {
		t.Errorf("the secret behind the symlinks changed: %q", b)
	}
}
