package wrapped_test

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/internal/refusal/refusaltest"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// refusalCase is one line of the spec's refusal table.
type refusalCase struct {
	name  string
	words []string // the call, command name first
	line  string
	err   error // the typed error Plan returns
}

func refusalCases(root string) []refusalCase {
	return []refusalCase{
		{"unknown verb", []string{"git", "comit"},
			"git: unknown verb 'comit'; allowed: commit, diff, log, push, status",
			&wrapped.UnknownVerbError{Command: "git", Verb: "comit", Allowed: []string{"commit", "diff", "log", "push", "status"}}},
		{"missing verb", []string{"git"},
			"git: no verb given; allowed: commit, diff, log, push, status",
			&wrapped.MissingVerbError{Command: "git", Allowed: []string{"commit", "diff", "log", "push", "status"}}},
		{"missing verb, flag first", []string{"git", "--oneline", "log"},
			"git: no verb given; allowed: commit, diff, log, push, status",
			&wrapped.MissingVerbError{Command: "git", Allowed: []string{"commit", "diff", "log", "push", "status"}}},
		{"unknown flag", []string{"git", "log", "--output"},
			"git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since",
			&wrapped.UnknownFlagError{Scope: "git log", Flag: "--output", Allowed: []string{"--oneline", "--since", "-n/--max-count"}}},
		{"unknown flag with value", []string{"git", "log", "--output=y"},
			"git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since",
			&wrapped.UnknownFlagError{Scope: "git log", Flag: "--output", Allowed: []string{"--oneline", "--since", "-n/--max-count"}}},
		{"unknown flag, none declared", []string{"cargo", "build", "--release"},
			"cargo build: unknown flag '--release'; allowed: (none)",
			&wrapped.UnknownFlagError{Scope: "cargo build", Flag: "--release", Allowed: nil}},
		{"clustered", []string{"probe", "run", "-sv"},
			"probe run: flags '-sv' written as one word; allowed: -s -v",
			&wrapped.ClusteredFlagsError{Scope: "probe run", Word: "-sv", Flags: []string{"-s", "-v"}}},
		{"glued value", []string{"git", "log", "-n5"},
			"git log: value glued to flag '-n5'; allowed: -n 5",
			&wrapped.GluedValueError{Scope: "git log", Word: "-n5", Flag: "-n", Value: "5"}},
		{"missing value", []string{"git", "log", "--since"},
			"git log: flag '--since' needs a value; allowed: --since VALUE",
			&wrapped.MissingValueError{Scope: "git log", Flag: "--since", Usage: "--since VALUE"}},
		{"unexpected value", []string{"git", "log", "--oneline=yes"},
			"git log: flag '--oneline' takes no value; allowed: --oneline",
			&wrapped.UnexpectedValueError{Scope: "git log", Flag: "--oneline"}},
		{"repeated", []string{"git", "log", "--since", "1d", "--since=2d"},
			"git log: flag '--since' given more than once; allowed: one --since",
			&wrapped.RepeatedFlagError{Scope: "git log", Flag: "--since"}},
		{"repeated under another spelling", []string{"git", "log", "-n", "1", "--max-count=2"},
			"git log: flag '--max-count' given more than once; allowed: one --max-count",
			&wrapped.RepeatedFlagError{Scope: "git log", Flag: "--max-count"}},
		{"extra word", []string{"cargo", "build", "extra"},
			"cargo build: unexpected argument 'extra'; allowed: (none)",
			&wrapped.ExtraArgumentError{Scope: "cargo build", Word: "extra"}},
		{"extra word after --, deny", []string{"cargo", "build", "--", "extra"},
			"cargo build: unexpected argument 'extra'; allowed: (none)",
			&wrapped.ExtraArgumentError{Scope: "cargo build", Word: "extra"}},
		{"extra word, after-dash-dash", []string{"cargo", "test", "extra"},
			"cargo test: unexpected argument 'extra'; allowed: -- before arguments meant for the program",
			&wrapped.ExtraArgumentError{Scope: "cargo test", Word: "extra", AfterDashDash: true}},
		{"required flag", []string{"git", "commit"},
			"git commit: required flag '--message' not given; allowed: a call with --message",
			&wrapped.RequiredFlagError{Scope: "git commit", Flag: "--message"}},
		{"required argument", []string{"git", "push", "origin"},
			"git push: required argument 'refspec' not given; allowed: a call with refspec",
			&wrapped.RequiredArgumentError{Scope: "git push", Name: "refspec"}},
		{"not an integer", []string{"git", "log", "-n", "many"},
			"git log: invalid --max-count 'many'; allowed: a base-10 integer",
			&wrapped.NotIntegerError{Scope: "git log", Flag: "--max-count", Value: "many"}},
		{"not a choice", []string{"git", "status", "--untracked-files", "maybe"},
			"git status: invalid --untracked-files 'maybe'; allowed: all, no, normal",
			&wrapped.NotChoiceError{Scope: "git status", Flag: "--untracked-files", Choices: []string{"no", "normal", "all"}, Value: "maybe"}},
		{"outside path", []string{"python", "/etc/passwd"},
			"python: script '/etc/passwd' is outside its directory; allowed: paths under " + root,
			&wrapped.OutsidePathError{Scope: "python", Name: "script", Dir: root, Value: "/etc/passwd"}},
	}
}

// shellWords quotes words for a script; the first word goes through a
// variable so that only execution, not the static pass, judges the call.
func shellWords(words []string, opaqueName bool) string {
	var b strings.Builder
	if opaqueName {
		b.WriteString("c=" + words[0] + "; $c")
	} else {
		b.WriteString(words[0])
	}
	for _, w := range words[1:] {
		b.WriteString(" '" + w + "'")
	}
	return b.String()
}

func TestRefusalLines(t *testing.T) {
	root := t.TempDir()
	cmds := loadFixture(t, root)
	s := newSession(t, kernel.Config{}, t.TempDir(), cmds)
	for _, tc := range refusalCases(root) {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cmds[tc.words[0]].Plan(tc.words[1:], t.TempDir())
			if err == nil || err.Error() != tc.line {
				t.Fatalf("Plan: got %v, want %s", err, tc.line)
			}
			if !reflect.DeepEqual(err, tc.err) {
				t.Errorf("Plan error: got %#v, want %#v", err, tc.err)
			}

			// What Run hands the kernel: the same line, in the voice of
			// every refusal.
			var ref *kernel.Refusal
			call := &kernel.Call{Args: tc.words, Dir: t.TempDir(), Stdout: io.Discard, Stderr: io.Discard}
			if err := cmds[tc.words[0]].Run(context.Background(), call); !errors.As(err, &ref) || ref.Error() != tc.line {
				t.Errorf("Run: got %v, want %s", err, tc.line)
			} else {
				refusaltest.Check(t, ref.Error(), ref.Command, ref.What, ref.Allowed, "")
			}

			// At execution: one line on stderr, exit 2, nothing spawned.
			res := run(t, s, shellWords(tc.words, true))
			if res.ExitCode != 2 || res.Stderr != tc.line+"\n" || res.Stdout != "" || res.Rejected {
				t.Errorf("execution: exit %d rejected %v stdout %q stderr %q", res.ExitCode, res.Rejected, res.Stdout, res.Stderr)
			}

			// Before execution: the whole script is rejected.
			res = run(t, s, shellWords(tc.words, false))
			if res.ExitCode != 2 || !res.Rejected || len(res.Issues) != 1 || res.Issues[0].Message != tc.line || res.Issues[0].Severity != kernel.SeverityError {
				t.Errorf("static: exit %d rejected %v issues %+v", res.ExitCode, res.Rejected, res.Issues)
			}
		})
	}
}

func TestRefusalNUL(t *testing.T) {
	cmds := loadFixture(t, t.TempDir())
	const line = "git log: argument 2 contains a NUL byte; allowed: arguments without NUL bytes"
	_, err := cmds["git"].Plan([]string{"log", "a\x00b"}, "/")
	var nul *wrapped.NULError
	if !errors.As(err, &nul) || nul.Index != 2 || err.Error() != line {
		t.Fatalf("Plan: %v", err)
	}
	s := newSession(t, kernel.Config{}, t.TempDir(), cmds)
	res, err := s.RunArgv(context.Background(), []string{"git", "log", "a\x00b"}, kernel.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 2 || res.Stderr != line+"\n" || res.Stdout != "" {
		t.Errorf("RunArgv: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	// In a JSON call too; the index counts the words the input renders to.
	if _, err := cmds["git"].PlanJSON("log", []byte(`{"revision":["ok","a\u0000b"]}`), "/"); err == nil || err.Error() != line {
		t.Errorf("PlanJSON: %v", err)
	}
}

func TestRefusalStdin(t *testing.T) {
	cmds := loadFixture(t, t.TempDir())
	s := newSession(t, kernel.Config{}, t.TempDir(), cmds)
	const line = "git log: input given on stdin, which the verb does not read; allowed: a call without input"
	for _, script := range []string{
		"echo hi | git log",
		"git log < /dev/zero", // never consumed: reading it would not end
		"git log <<< hi",
	} {
		res := run(t, s, script)
		if res.ExitCode != 2 || res.Stderr != line+"\n" || res.Stdout != "" {
			t.Errorf("%s: exit %d stdout %q stderr %q", script, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	// Without input the call runs.
	res := run(t, s, "git log")
	if res.ExitCode != 0 || res.Stdout != "[\"log\"]\n" {
		t.Errorf("git log: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestRefusalValuesStayOneLine(t *testing.T) {
	cmds := loadFixture(t, t.TempDir())
	_, err := cmds["git"].Plan([]string{"log", "-n", "1\n2"}, "/")
	if got, want := err.Error(), `git log: invalid --max-count '1\n2'; allowed: a base-10 integer`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	long := strings.Repeat("é", 200) // cut at 80 characters, not bytes
	_, err = cmds["git"].Plan([]string{"comit" + long}, "/")
	if got, want := err.Error(), "git: unknown verb 'comit"+strings.Repeat("é", 75)+"…'; allowed: commit, diff, log, push, status"; got != want {
		t.Errorf("long value:\ngot  %s\nwant %s", got, want)
	}
}

// The pools of allowed names are sorted, whatever the declared order; the
// fields hold them sorted too.
func TestRefusalPoolsSorted(t *testing.T) {
	c, err := wrapped.New("zed", helper).
		Verb(wrapped.NewVerb("zulu").Flag(wrapped.Switch("zz"), wrapped.Switch("b").Alias("aa"), wrapped.Switch("a")),
			wrapped.NewVerb("alpha")).
		Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		err  error
		line string
	}{
		{[]string{"nope"}, &wrapped.UnknownVerbError{Command: "zed", Verb: "nope", Allowed: []string{"alpha", "zulu"}},
			"zed: unknown verb 'nope'; allowed: alpha, zulu"},
		{nil, &wrapped.MissingVerbError{Command: "zed", Allowed: []string{"alpha", "zulu"}},
			"zed: no verb given; allowed: alpha, zulu"},
		{[]string{"zulu", "--c"}, &wrapped.UnknownFlagError{Scope: "zed zulu", Flag: "--c", Allowed: []string{"--zz", "-a", "-b/--aa"}},
			"zed zulu: unknown flag '--c'; allowed: -a, -b/--aa, --zz"},
	} {
		_, err := c.Plan(tc.args, "/")
		if err == nil || err.Error() != tc.line || !reflect.DeepEqual(err, tc.err) {
			t.Errorf("%q: got %#v (%v), want %s", tc.args, err, err, tc.line)
		}
	}
}
