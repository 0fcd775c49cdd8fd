package wrapped_test

import (
	"context"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// hostileValues must reach the child's argv byte for byte.
var hostileValues = []string{
	"a--b",
	"",
	"héllo wörld ✓ 日本",
	"line one\nline two\n",
	"; rm -rf /",
	"$(id)",
	"`id`",
	"'single' \"double\" \\back",
	"*",
	"--oneline",
	"-",
	"\t\r\x01",
}

// shellQuote writes s as one bash word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func TestValuesByteForByte(t *testing.T) {
	dir := t.TempDir()
	s := newSession(t, kernel.Config{}, dir, loadFixture(t, dir))
	for _, v := range hostileValues {
		calls := []struct {
			script string
			want   []string
		}{
			{"probe run --name=" + shellQuote(v), []string{"--lead", "run", "--verb-lead", "--name=" + v}},
			{"probe run --name " + shellQuote(v), []string{"--lead", "run", "--verb-lead", "--name=" + v}},
			{"probe run -m " + shellQuote(v), []string{"--lead", "run", "--verb-lead", "-m", v}},
			{"probe run -- " + shellQuote(v) + " " + shellQuote(v), []string{"--lead", "run", "--verb-lead", "--", v, v}},
			{"probe dash x -- " + shellQuote(v), []string{"--lead", "dash", "x", "--", v}},
		}
		for _, c := range calls {
			res := run(t, s, c.script)
			if res.ExitCode != 0 {
				t.Errorf("%q: exit %d stderr %q", c.script, res.ExitCode, res.Stderr)
				continue
			}
			if got := argvOf(t, res.Stdout); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%q: argv %q, want %q", c.script, got, c.want)
			}
		}
		// Without a shell: RunArgv hands the words over as they are.
		res, err := s.RunArgv(context.Background(), []string{"git", "log", "--since", v, "--", v}, kernel.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := argvOf(t, res.Stdout), []string{"log", "--since=" + v, "--", v}; !reflect.DeepEqual(got, want) {
			t.Errorf("RunArgv %q: argv %q, want %q", v, got, want)
		}
	}
}

// /bin/echo as the oracle: what it prints is its argv joined by spaces.
func TestValuesThroughEcho(t *testing.T) {
	cmds := loadString(t, `
commands:
  say:
    executable: /bin/echo
    root:
      positionals: [{name: text, many: true}]
`)
	s := newSession(t, kernel.Config{}, t.TempDir(), cmds)
	var script strings.Builder
	script.WriteString("say --")
	for _, v := range hostileValues {
		script.WriteString(" " + shellQuote(v))
	}
	res := run(t, s, script.String())
	want := "-- " + strings.Join(hostileValues, " ") + "\n"
	if res.ExitCode != 0 || res.Stdout != want {
		t.Errorf("echo: exit %d stdout %q, want %q (stderr %q)", res.ExitCode, res.Stdout, want, res.Stderr)
	}
}

// /usr/bin/env as the oracle: the child gets the session's exported
// variables and the pins, which win; nothing else of the host's.
func TestEnvironment(t *testing.T) {
	t.Setenv("WRAPPED_HOST_SECRET", "leak")
	cmds := loadString(t, `
commands:
  showenv:
    executable: /usr/bin/env
    env: {PINNED: pinned value, HOME: /pinned/home}
    root: {}
`)
	s := newSession(t, kernel.Config{}, t.TempDir(), cmds)
	res := run(t, s, "export FOO=bar HOME=/session/home; local_only=1; showenv")
	if res.ExitCode != 0 {
		t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	env := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n") {
		env[line]++
	}
	for _, want := range []string{"PINNED=pinned value", "HOME=/pinned/home", "FOO=bar"} {
		if env[want] != 1 {
			t.Errorf("%s: seen %d times in\n%s", want, env[want], res.Stdout)
		}
	}
	for line := range env {
		for _, bad := range []string{"WRAPPED_HOST_SECRET=", "local_only=", "HOME=/session/home"} {
			if strings.HasPrefix(line, bad) {
				t.Errorf("child got %s", line)
			}
		}
	}
}

// The pinned executable runs whatever the session's PATH, and when
// external programs are denied.
func TestPinnedExecutable(t *testing.T) {
	dir := t.TempDir()
	cmds := loadFixture(t, dir)
	s := newSession(t, kernel.Config{}, dir, cmds)
	res := run(t, s, "PATH=/nonexistent; git log main")
	if res.ExitCode != 0 || argvOf(t, res.Stdout)[1] != "main" {
		t.Errorf("PATH changed: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(t, s, "export PATH=; git log main")
	if res.ExitCode != 0 || argvOf(t, res.Stdout)[1] != "main" {
		t.Errorf("PATH exported empty: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}

	denied := newSession(t, kernel.Config{Externals: kernel.ExternalsDenied}, dir, cmds)
	res = run(t, denied, "git log main")
	if res.ExitCode != 0 || argvOf(t, res.Stdout)[1] != "main" {
		t.Errorf("externals denied: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if res := run(t, denied, "ls"); res.ExitCode == 0 {
		t.Errorf("externals denied, yet ls ran: %q", res.Stdout)
	}

	// Every profile: the sandbox too, whose root does not hold the program.
	for _, profile := range []kernel.Profile{kernel.ProfileHost, kernel.ProfileAgent, kernel.ProfileSandbox} {
		cfg, _ := kernel.Preset(profile)
		s := newSession(t, cfg, dir, cmds)
		if res := run(t, s, "git log main"); res.ExitCode != 0 || argvOf(t, res.Stdout)[1] != "main" {
			t.Errorf("%s: exit %d stdout %q stderr %q", profile, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
}

func TestStdinPipe(t *testing.T) {
	dir := t.TempDir()
	s := newSession(t, kernel.Config{}, dir, loadFixture(t, dir))
	res := run(t, s, "printf 'a\\nb\\n' | reader pipe")
	if res.ExitCode != 0 || res.Stdout != "a\nb\n" {
		t.Errorf("pipe: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(t, s, "reader pipe")
	if res.ExitCode != 0 || res.Stdout != "" {
		t.Errorf("no input: exit %d stdout %q", res.ExitCode, res.Stdout)
	}
	res = run(t, s, "echo x | reader closed")
	if res.ExitCode != 2 || res.Stderr != "reader closed: input given on stdin, which the verb does not read; allowed: a call without input\n" {
		t.Errorf("closed: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
}

func TestJSONOutput(t *testing.T) {
	dir := t.TempDir()
	s := newSession(t, kernel.Config{}, dir, loadFixture(t, dir))
	res := run(t, s, `emit out '{"a": [1, 2]}'`)
	if res.ExitCode != 0 || string(res.Data) != `{"a": [1, 2]}` {
		t.Errorf("data: exit %d data %s stderr %q", res.ExitCode, res.Data, res.Stderr)
	}
	res = run(t, s, `emit out 'not json'`)
	if res.ExitCode != 1 || res.Data != nil || !strings.HasPrefix(res.Stderr, "emit: declared JSON output, but stdout does not parse: ") || strings.Count(res.Stderr, "\n") != 1 {
		t.Errorf("bad json: exit %d data %s stderr %q", res.ExitCode, res.Data, res.Stderr)
	}
	// The argv oracle prints a JSON array: data is what it printed.
	res = run(t, s, `probe json`)
	if res.ExitCode != 0 || string(res.Data) != `["--lead","json"]` {
		t.Errorf("probe json: exit %d data %s", res.ExitCode, res.Data)
	}
	// A verb without json sets no data.
	res = run(t, s, `probe run a`)
	if res.Data != nil {
		t.Errorf("data without json: %s", res.Data)
	}
}

// JSON output is parsed only when the child exits 0 and its output was not
// cut: a failing child keeps its status, and output past the bound kept for
// parsing is no error.
func TestJSONOutputNotParsed(t *testing.T) {
	fail, err := wrapped.New("fail", helper).Env(helperEnv, "fail").Root(wrapped.NewVerb("").JSON()).Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flood, err := wrapped.New("flood", helper).Env(helperEnv, "flood").Root(wrapped.NewVerb("").JSON()).Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, kernel.Config{OutputLimit: 4096}, t.TempDir(), map[string]*wrapped.Command{"fail": fail, "flood": flood})
	res := run(t, s, "fail")
	if res.ExitCode != 3 || res.Data != nil || res.Stderr != "" {
		t.Errorf("fail: exit %d data %s stderr %q", res.ExitCode, res.Data, res.Stderr)
	}
	res = run(t, s, "flood")
	if res.ExitCode != 0 || res.Data != nil || res.Stderr != "" || res.StdoutBytes != 17<<20 {
		t.Errorf("flood: exit %d data %.20s stderr %q stdout bytes %d", res.ExitCode, res.Data, res.Stderr, res.StdoutBytes)
	}
}

func TestHelpThroughSession(t *testing.T) {
	dir := t.TempDir()
	cmds := loadFixture(t, dir)
	s := newSession(t, kernel.Config{}, dir, cmds)
	v, _ := cmds["git"].Verb("log")
	res := run(t, s, "git log --help")
	if res.ExitCode != 0 || res.Stdout != v.Help() || !strings.Contains(res.Stdout, "-n, --max-count N  Limit the number of commits.") {
		t.Errorf("git log --help: exit %d stdout %q", res.ExitCode, res.Stdout)
	}
	res = run(t, s, "git --help")
	if res.ExitCode != 0 || res.Stdout != cmds["git"].Help() || !strings.Contains(res.Stdout, "verbs:\n  commit") {
		t.Errorf("git --help: exit %d stdout %q", res.ExitCode, res.Stdout)
	}
	res = run(t, s, "help git")
	if res.ExitCode != 0 || res.Stdout != cmds["git"].Help() {
		t.Errorf("help git: exit %d stdout %q", res.ExitCode, res.Stdout)
	}
	// Help spawns nothing, even with input that the verb would refuse.
	res = run(t, s, "echo x | git log -h")
	if res.ExitCode != 0 || res.Stdout != v.Help() {
		t.Errorf("piped help: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// tty: true runs the child on a pseudo-terminal; without it, stdin is no
// terminal.
func TestTTY(t *testing.T) {
	tty, err := exec.LookPath("tty")
	if err != nil {
		t.Skip("no tty program")
	}
	cmds := loadString(t, `
commands:
  onpty: {executable: `+tty+`, tty: true, root: {}}
  nopty: {executable: `+tty+`, root: {}}
`)
	s := newSession(t, kernel.Config{}, t.TempDir(), cmds)
	if res := run(t, s, "onpty"); res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "/dev/") {
		t.Errorf("tty: true: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if res := run(t, s, "nopty"); res.ExitCode != 1 || res.Stdout != "not a tty\n" {
		t.Errorf("tty: false: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}
