package wrapped_test

import (
	"os"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// FuzzLoad feeds the YAML loader arbitrary files: it must answer with
// commands or a FILE:LINE:COL error, never panic.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(strings.ReplaceAll(fixture, "@HELPER@", "/bin/echo")))
	if data, err := os.ReadFile(examplesFile); err == nil {
		f.Add(data)
	}
	f.Add([]byte("commands:\n  a: {executable: /bin/echo, root: {flags: {x: {alias: [y, -z]}}}}\n"))
	f.Add([]byte("commands: &a {b: *a}\n"))
	f.Add([]byte(aliasFile(3, 2)))
	f.Add([]byte("commands:\n  a:\n    <<: {executable: /bin/echo}\n"))
	f.Add([]byte("tools: {}\n"))
	f.Add([]byte("commands:\n  a:\n    executable: /bin/echo\n    verbs: {v: {positionals: [{name: p, path_under: /}]}}\n"))
	f.Add([]byte("commands:\n  a:\n    executable: /bin/echo\n    root: {positionals: [{name: p, path_under: /, hold: true}, {hold: [x], name: q}]}\n"))
	f.Add([]byte("commands:\n  a:\n    executable: /bin/echo\n    network: true\n    read_paths: [/usr, .]\n    write_paths: [/tmp]\n    verbs: {v: {network: false, read_paths: [/etc], write_paths: [nowhere]}}\n"))
	f.Add([]byte("commands:\n  a:\n    executable: /bin/echo\n    network: [x]\n    read_paths: &p [/usr, *p]\n    root: {write_paths: {a: b}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cmds, err := wrapped.LoadBytes("fuzz.yaml", data, wrapped.LoadOptions{Path: "/bin:/usr/bin"})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml:") {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		for _, c := range cmds {
			_ = c.Help()
			for _, v := range c.Verbs() {
				_ = v.Help()
				if _, err := c.Plan([]string{v.Name(), "--help"}, "/"); err != nil && !v.IsRoot() {
					t.Fatalf("help refused: %v", err)
				}
			}
		}
	})
}

// FuzzParse feeds the call parser arbitrary words (separated by newlines;
// a word "$" is opaque in the static pass) against the fixture.
func FuzzParse(f *testing.F) {
	cmds := loadFixture(f, f.TempDir())
	for _, seed := range []string{
		"git\nlog\n-n\n5\n--oneline\n--since=2.days.ago\nmain\n--\ndocs",
		"git\nlog\n$\n--output=y",
		"git\n$\n--output=y",
		"probe\nrun\n-sv\n-n5\n--tag=a\n--\n-s",
		"probe\nfwd\n--x=1\n-\n--help",
		"probe\ndash\na\n--\nb\n--",
		"python\n../../etc/passwd",
		"python\n/\x00",
		"tool\n--version\n-h",
		"git\nstatus\n--untracked-files\nmaybe",
		"git\nlog\n-=\n--=x\n-n=5",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		w := strings.Split(input, "\n")
		c := cmds[w[0]]
		if c == nil {
			c = cmds["probe"]
		}
		words := make([]kernel.Word, len(w))
		args := make([]string, len(w)-1)
		for i, s := range w {
			words[i] = kernel.Word{Text: s, Opaque: s == "$"}
			if i > 0 {
				args[i-1] = s
			}
		}
		_ = c.CheckStatic(words)
		plan, err := c.Plan(args, "/tmp")
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, c.Name()) {
				t.Fatalf("refusal is not one line naming the command: %q", msg)
			}
			return
		}
		if plan.Help {
			return
		}
		if len(plan.Argv) == 0 || plan.Argv[0] != c.Executable() || plan.Path != c.Executable() {
			t.Fatalf("argv %q does not start with the pinned executable", plan.Argv)
		}
	})
}
