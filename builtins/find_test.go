package builtins

import (
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// GNU's find lists a directory in readdir order and ours in name order:
// listings of more than one entry are piped through sort.
func TestFindGNU(t *testing.T) {
	t.Parallel()
	tree := map[string]string{"a.go": "package a\n", "b.txt": "", "B.GO": "x", "d/c.go": strings.Repeat("x", 3000), "d/e/f.go": "", "empty/": "", ".hid": "h"}
	compareGNU(t, []kernel.Tool{cmdFind}, []gnuCase{
		{name: "default", script: "find | sort", files: tree},
		{name: "dot", script: "find . | sort", files: tree},
		{name: "paths", script: "find d a.go | sort", files: tree},
		{name: "trailing slash", script: "find d/ | sort", files: tree},
		{name: "name", script: "find . -name '*.go' | sort", files: tree},
		{name: "name class", script: "find . -name '[ab].*' | sort; find . -name '[!a]*' | sort", files: tree},
		{name: "iname", script: "find . -iname '*.go' | sort", files: tree},
		{name: "path", script: "find . -path './d/*' | sort; find . -wholename '*e*' | sort", files: tree},
		{name: "ipath", script: "find . -ipath './D/*.GO' | sort", files: tree},
		{name: "type", script: "find . -type d | sort; find . -type f | sort", files: tree},
		{name: "type link", script: "ln -s a.go l; mkfifo p; find . -type l; find . -type p; find . -type f,l | sort", files: tree},
		{name: "type bad", script: "find . -type x", files: tree},
		{name: "maxdepth", script: "find . -maxdepth 1 | sort; find . -maxdepth 0", files: tree},
		{name: "mindepth", script: "find . -mindepth 2 | sort", files: tree},
		{name: "maxdepth bad", script: "find . -maxdepth x", files: tree},
		{name: "maxdepth after test", script: "find . -name d -maxdepth 1", files: tree},
		{name: "newer", script: "touch -d 2020-01-01 a.go; touch -d 2021-01-01 b.txt; find . -newer a.go -name '*.txt'", files: tree},
		{name: "newer missing", script: "find . -newer nope", files: tree},
		{name: "size", script: "find . -size +2k | sort; find . -size -1 -type f | sort; find . -size 3000c; find . -size 1c; find . -type f -size 6 | sort", files: tree},
		{name: "empty", script: "find . -empty | sort", files: tree},
		{name: "print0", script: "find d -print0 | sort -z | tr '\\0' '\\n'", files: tree},
		{name: "print", script: "find . -name a.go -print -print", files: tree},
		{name: "prune", script: "find . -name d -prune -o -print | sort", files: tree},
		{name: "prune print", script: "find . -name d -prune -print", files: tree},
		{name: "not", script: "find . ! -name '*.go' | sort; find . -not -type d | sort", files: tree},
		{name: "and or", script: "find . -name '*.go' -a -type f -o -name empty | sort; find . -type f -and -name 'b*' -or -name e | sort", files: tree},
		{name: "parens", script: "find . \\( -name a.go -o -name b.txt \\) -print | sort", files: tree},
		{name: "parens unclosed", script: "find . \\( -name a.go", files: tree},
		{name: "too many parens", script: "find . -name a.go \\)", files: tree},
		{name: "true false", script: "find . -maxdepth 0 -true; find . -false", files: tree},
		{name: "mtime", script: "touch -d 2020-01-01 a.go; find . -mtime +30 -name a.go; find . -mtime -1 -name b.txt; find . -mmin +60 -name a.go; find . -mmin -5 -name b.txt", files: tree},
		{name: "missing path", script: "find nope a.go; echo $?", files: tree},
		{name: "missing argument", script: "find . -name", files: tree},
		{name: "stray word", script: "find . -name a.go b", files: tree},
		{name: "root path", script: "find a.go -name a.go", files: tree},
	})
}

func TestFindRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f": ""})
	for _, flag := range []string{"-exec", "-execdir", "-ok", "-okdir", "-delete"} {
		res := run(t, []kernel.Tool{cmdFind}, dir, "", "find . "+flag+" rm {} ';'")
		want := "find: primary '" + flag + "' is not supported; allowed: -print0 | xargs -0 CMD\n"
		if res.ExitCode != 2 || res.Stderr != want || res.Stdout != "" {
			t.Errorf("%s: status %d, %q, %q", flag, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	res := run(t, []kernel.Tool{cmdFind}, dir, "", "find . -frob")
	if res.ExitCode != 2 || !strings.HasPrefix(res.Stderr, "find: unknown primary '-frob'; allowed: !, (, ), -a,") {
		t.Errorf("unknown: status %d, %q", res.ExitCode, res.Stderr)
	}
	res = run(t, []kernel.Tool{cmdFind}, dir, "", "find --help")
	if res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "usage: find [PATH]...") {
		t.Errorf("help: %q", res.Stdout)
	}
}

func TestFindMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"*.go", "a.go", true}, {"*.go", "d/a.go", true}, {"a?c", "abc", true}, {"a?c", "ac", false},
		{"[a-c]x", "bx", true}, {"[!a-c]x", "bx", false}, {"[^a]x", "bx", true}, {"[]]", "]", true},
		{"\\*", "*", true}, {"\\*", "a", false}, {"[", "[", true}, {"*a*b", "xaxb", true}, {"", "", true},
	} {
		if got := findMatch(tc.pat, tc.s, false); got != tc.want {
			t.Errorf("findMatch(%q, %q) = %v", tc.pat, tc.s, got)
		}
	}
}

func TestFindSandbox(t *testing.T) {
	t.Parallel()
	var escapes []sandboxEscape
	for _, n := range outsideNames {
		escapes = append(escapes, sandboxEscape{script: "find " + n}, sandboxEscape{script: "find . " + n + " -name x"},
			sandboxEscape{script: "find . -newer " + n})
	}
	escapes = append(escapes,
		sandboxEscape{script: "find /"}, sandboxEscape{script: "find /etc -name passwd"}, sandboxEscape{script: "find .."},
		sandboxEscape{script: "find out/"}, sandboxEscape{script: "find chain/ -type f"},
		// Walking the root meets the links and does not follow them.
		sandboxEscape{script: "find . -type f -name secret -print | grep -q . || find out/sub", line: "find: 'out/sub'"},
	)
	checkEscapes(t, []kernel.Tool{cmdFind}, escapes)
}
