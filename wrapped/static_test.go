package wrapped_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// lit and op build the words the static pass hands to CheckStatic.
func lit(s string) kernel.Word { return kernel.Word{Text: s} }

var op = kernel.Word{Opaque: true}

func TestCheckStatic(t *testing.T) {
	cmds := loadFixture(t, "/")
	cases := []struct {
		name    string
		words   []kernel.Word
		line    string // "" means no refusal
		certain bool
	}{
		{"literal and fine", []kernel.Word{lit("git"), lit("log"), lit("-n"), lit("5")}, "", false},
		{"literal refusal is certain", []kernel.Word{lit("git"), lit("log"), lit("--output")}, "git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since", true},
		{"opaque positional: log $x", []kernel.Word{lit("git"), lit("log"), op}, "", false},
		{"opaque verb: $x --output=y", []kernel.Word{lit("git"), op, lit("--output=y")}, "", false},
		{"opaque value is not judged", []kernel.Word{lit("git"), lit("log"), lit("-n"), op}, "", false},
		{"opaque word makes a refusal uncertain", []kernel.Word{lit("git"), lit("log"), op, lit("--output=y")}, "git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since", false},
		{"opaque word before the refusal too", []kernel.Word{lit("git"), lit("log"), lit("-n"), lit("many"), op}, "git log: invalid --max-count 'many'; allowed: a base-10 integer", false},
		{"required not checked when uncertain", []kernel.Word{lit("git"), lit("commit"), op}, "", false},
		{"required checked when certain", []kernel.Word{lit("git"), lit("commit")}, "git commit: required flag '--message' not given; allowed: a call with --message", true},
		{"unknown verb is certain", []kernel.Word{lit("git"), lit("comit")}, "git: unknown verb 'comit'; allowed: commit, diff, log, push, status", true},
		{"help is fine", []kernel.Word{lit("git"), lit("log"), lit("--help")}, "", false},
		{"absolute path_under checked", []kernel.Word{lit("python"), lit("/etc/passwd")}, "python: script '/etc/passwd' is outside its directory; allowed: paths under /", true},
		{"relative path_under left to execution", []kernel.Word{lit("python"), lit("../../x")}, "", false},
	}
	// Under "/", every path is inside: use a narrower root for the path case.
	narrow := loadFixture(t, t.TempDir())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := cmds[tc.words[0].Text]
			line := tc.line
			if tc.words[0].Text == "python" && strings.HasPrefix(tc.words[1].Text, "/") {
				c = narrow["python"]
				root := c.Verbs()[0].Positionals()[0].PathUnder()
				line = "python: script '/etc/passwd' is outside its directory; allowed: paths under " + root
			}
			err := c.CheckStatic(tc.words)
			if line == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || err.Error() != line {
				t.Fatalf("got %v, want %s", err, line)
			}
			// kernel.Uncertain wraps; the refusals themselves do not.
			_, uncertain := err.(interface{ Unwrap() error })
			if uncertain == tc.certain {
				t.Errorf("certain = %v, want %v (%T)", !uncertain, tc.certain, err)
			}
		})
	}
}

// A certain refusal rejects the whole script before anything runs.
func TestStaticRejectsWholeScript(t *testing.T) {
	dir := t.TempDir()
	s := newSession(t, kernel.Config{}, dir, loadFixture(t, dir))
	res := run(t, s, "touch marker\ngit log --output=f\n")
	if res.ExitCode != 2 || !res.Rejected {
		t.Fatalf("exit %d rejected %v", res.ExitCode, res.Rejected)
	}
	want := "git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since\n"
	if res.Stderr != want {
		t.Errorf("stderr %q, want %q", res.Stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); !os.IsNotExist(err) {
		t.Errorf("marker exists: the script ran (%v)", err)
	}
}

// Opaque words are not refused statically; at execution the same parser
// decides on the expanded words.
func TestStaticOpaqueThenExecution(t *testing.T) {
	dir := t.TempDir()
	s := newSession(t, kernel.Config{}, dir, loadFixture(t, dir))

	res := run(t, s, "x=main; git log $x")
	if res.ExitCode != 0 || res.Rejected || len(res.Issues) != 0 || argvOf(t, res.Stdout)[1] != "main" {
		t.Errorf("log $x: %+v", res)
	}

	res = run(t, s, "x=log; git $x --output=y")
	if res.Rejected || len(res.Issues) != 0 {
		t.Errorf("$x --output=y refused statically: %+v", res.Issues)
	}
	if res.ExitCode != 2 || res.Stderr != "git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since\n" {
		t.Errorf("$x --output=y at execution: exit %d stderr %q", res.ExitCode, res.Stderr)
	}

	res = run(t, s, "touch ran; x=--output=f; git log $x")
	if res.Rejected || res.ExitCode != 2 || res.Stderr != "git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since\n" {
		t.Errorf("x=--output=f; git log $x: exit %d rejected %v stderr %q", res.ExitCode, res.Rejected, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Errorf("the script did not run up to the refusal: %v", err)
	}

	// An uncertain refusal is a warning: the script runs, and execution
	// refuses the call.
	res = run(t, s, "x=main; git log $x --output=y")
	if res.Rejected || res.ExitCode != 2 || len(res.Issues) != 1 || res.Issues[0].Severity != kernel.SeverityWarning {
		t.Errorf("warning: exit %d rejected %v issues %+v", res.ExitCode, res.Rejected, res.Issues)
	}
}
