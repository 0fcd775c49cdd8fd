package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refusalRow is one refusal of the project as an agent meets it: the
// script (or, with no script, the command line), its exact line and its
// exit status. The rule (docs/sandbox.md, "Exit status of a refusal"):
// a refusal is one line that names what is allowed and exits 2; a
// command the session does not have exits 127, and a refused redirection
// 1, as in bash.
type refusalRow struct {
	name   string
	args   []string // the command line; nil: the sandbox over examples/
	script string
	line   string // $ROOT is the sandbox's root, $EXAMPLES examples/
	status int
}

var refusalRows = []refusalRow{
	// The kernel's external policy: the pool is the declared commands
	// and the builtins; the way to allow curl is the operator's.
	{name: "external", script: "curl -s https://example.com",
		line:   "shelter: external command 'curl' is not allowed in this session; allowed: git, go, logs, python3, restart, word_count and the builtins (help lists them)",
		status: 127},
	{name: "external at execution", script: "c=curl; $c -s https://example.com",
		line:   "shelter: external command 'curl' is not allowed in this session; allowed: git, go, logs, python3, restart, word_count and the builtins (help lists them)",
		status: 127},
	{name: "external through a launcher", script: "timeout 5 curl x",
		line:   "shelter: external command 'curl' is not allowed in this session; allowed: git, go, logs, python3, restart, word_count and the builtins (help lists them)",
		status: 127},

	// A launcher taken from PATH.
	{name: "launcher", script: "/usr/bin/env true",
		line: "shelter: '/usr/bin/env' is a launcher, run only as shelter's own; allowed: env", status: 2},
	{name: "launcher at execution", script: "c=/usr/bin/env; $c true",
		line: "shelter: '/usr/bin/env' is a launcher, run only as shelter's own; allowed: env", status: 127},

	// The guard.
	{name: "guard", script: "journalctl -u nginx",
		line: "shelter: 'journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — nothing ran", status: 2},
	{name: "guard at execution", script: "c=journalctl; $c -u nginx",
		line: "shelter: 'journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — it did not run", status: 2},

	// The sandbox's root, through builtins and cd: refusals.
	{name: "cat outside", script: "cat /etc/passwd",
		line: "cat: /etc/passwd: outside the sandbox root; allowed: paths under $ROOT", status: 2},
	{name: "cat ..", script: "cat ../x",
		line: "cat: ../x: outside the sandbox root; allowed: paths under $ROOT", status: 2},
	{name: "cd outside", script: "cd /",
		line: "cd: /: outside the sandbox root; allowed: paths under $ROOT", status: 2},
	{name: "ls outside", script: "ls /",
		line: "ls: cannot access '/': outside the sandbox root; allowed: paths under $ROOT", status: 2},
	{name: "cp from outside", script: "cp /etc/passwd .",
		line: "cp: cannot stat '/etc/passwd': outside the sandbox root; allowed: paths under $ROOT", status: 2},
	{name: "ln to outside", script: "ln -s /etc x",
		line: "ln: failed to create symbolic link 'x': target /etc is outside the sandbox root; allowed: paths under $ROOT", status: 2},
	{name: "find outside", script: "find /",
		line: "find: '/': outside the sandbox root; allowed: paths under $ROOT", status: 2},
	{name: "touch outside", script: "touch /etc/x",
		line: "touch: setting times of '/etc/x': outside the sandbox root; allowed: paths under $ROOT", status: 2},
	{name: "source outside", script: "source /etc/passwd",
		line: "source: /etc/passwd: outside the sandbox root; allowed: paths under $ROOT", status: 2},
	{name: "outside through a launcher", script: "timeout 5 cat /etc/passwd",
		line: "cat: /etc/passwd: outside the sandbox root; allowed: paths under $ROOT", status: 2},
	// ... and through the shell's redirections: 1, as every failed
	// redirection is.
	{name: "redirection out", script: "echo x > /etc/x",
		line: "open /etc/x: outside the sandbox root; allowed: paths under $ROOT", status: 1},
	{name: "redirection in", script: "cat < /etc/passwd",
		line: "open /etc/passwd: outside the sandbox root; allowed: paths under $ROOT", status: 1},
	{name: "process substitution", script: "cat <(echo x)",
		line: "process substitution is not available in the sandbox profile; allowed: a pipe (cmd | ...) or a file under $TMPDIR", status: 2},

	// The builtins' own refusals.
	{name: "builtin flag", script: "cat --nosuch f",
		line: "cat: unknown flag '--nosuch'; allowed: -A/--show-all, -E/--show-ends, -T/--show-tabs, -b/--number-nonblank, -e, -n/--number, -s/--squeeze-blank, -t, -u, -v/--show-nonprinting", status: 2},
	{name: "find -exec", script: "find . -exec rm {} ';'",
		line: "find: primary '-exec' is not supported; allowed: -print0 | xargs -0 CMD", status: 2},

	// Wrapped commands (wrapped/refusal_test.go holds every kind).
	{name: "wrapped verb", script: "git comit",
		line: "git: unknown verb 'comit'; allowed: add, branch, checkout, commit, diff, init, log, show, status, switch", status: 2},
	{name: "wrapped flag at execution", script: "c=git; $c log --output x",
		line: "git log: unknown flag '--output'; allowed: --author, --format, -n/--max-count, --oneline, --since, --stat", status: 2},
	{name: "wrapped path", script: "python3 /etc/passwd",
		line: "python3: script '/etc/passwd' is outside its directory; allowed: paths under $ROOT", status: 2},

	// Harness tools' schemas.
	{name: "harness argument", script: "logs --unit u --nope",
		line: "logs: unknown flag '--nope'; allowed: --follow, --json, --lines, --tags, --unit", status: 2},
	{name: "harness type at execution", script: "c=logs; $c --lines x",
		line: "logs: invalid --lines 'x'; allowed: an integer (base 10)", status: 2},

	// The command line.
	{name: "CLI flag", args: []string{"--nosuch", "-c", "true"},
		line: "shelter: unknown flag '--nosuch'; allowed: --agent, --allow-external, --allow-read, --allow-write, --builtins, -c, --confine, --cwd, --env, --json, --network, --norc, --output-limit, --pass-env, --profile, --root, --timeout, --tools, --workspace", status: 2},
	{name: "CLI profile", args: []string{"--profile", "nosuch", "-c", "true"},
		line: "shelter: --profile: unknown profile 'nosuch'; allowed: agent, host, sandbox", status: 2},
	{name: "CLI timeout", args: []string{"--timeout", "5", "-c", "true"},
		line: "shelter: --timeout: '5' has no unit; write a Go duration such as 5s, 500ms or 2m (0 for none)", status: 2},
}

// TestEveryRefusal runs each refusal of the project through the command
// line: one line on stderr, exactly, nothing on stdout, and the status
// of the rule.
func TestEveryRefusal(t *testing.T) {
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	for _, row := range refusalRows {
		t.Run(row.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "f"), []byte("f\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := row.args
			if args == nil {
				args = []string{"--profile", "sandbox", "--root", root, "--cwd", root,
					"--tools", filepath.Join(examples, "tools.yaml"), "--tools", filepath.Join(examples, "harness.yaml"),
					"-c", row.script}
			}
			var stdout, stderr bytes.Buffer
			status := run(args, devnull, &stdout, &stderr)
			want := strings.NewReplacer("$ROOT", root, "$EXAMPLES", examples).Replace(row.line) + "\n"
			if status != row.status || stderr.String() != want || stdout.Len() != 0 {
				t.Errorf("%q: status %d stdout %q\nstderr %q\nwant status %d and %q", row.script, status, stdout.String(), stderr.String(), row.status, want)
			}
		})
	}
}
