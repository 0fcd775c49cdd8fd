package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// A kernel with no launcher registered refuses env, timeout, xargs and
// the other launcher names — statically and at execution, by name and by
// path, in every profile — and never runs them from PATH, even when PATH
// has them.
func TestLaunchersFailClosed(t *testing.T) {
	bin := t.TempDir()
	ran := filepath.Join(t.TempDir(), "ran")
	fake := "#!/bin/sh\necho \"$0 $*\" >> \"$RAN\"\n"
	for _, name := range append(kernel.LauncherNames(), "git", "curl") {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	line := func(name string) string {
		return "shelter: '" + name + "' is a launcher and no launcher of that name is registered, so it is not taken from PATH; register builtins.Launchers() in Config.Tools"
	}
	static := []struct{ script, launcher string }{
		{"env git status", "env"},
		{"timeout 5 curl https://example.com", "timeout"},
		{"echo https://example.com | xargs curl", "xargs"},
		{"nice -n 5 git gc", "nice"},
		{"nohup git fetch", "nohup"},
		{"setsid curl x", "setsid"},
		{"stdbuf -oL git log", "stdbuf"},
		{"ionice -c3 git gc", "ionice"},
		{"taskset -c 0 git gc", "taskset"},
		{"chrt -o 0 git gc", "chrt"},
		{"flock /tmp/l git gc", "flock"},
		{"command env git status", "env"},
		{"exec timeout 5 curl x", "timeout"},
		{bin + "/env git status", bin + "/env"},
	}
	dynamic := []struct{ script, launcher string }{
		{"e=env; $e git status", "env"},
		{"t=timeout; $t 5 curl x", "timeout"},
		{"x=xargs; echo u | $x curl", "xargs"},
	}
	for _, profile := range kernel.Profiles() {
		t.Run(string(profile), func(t *testing.T) {
			root := t.TempDir()
			cfg, _ := kernel.Preset(profile)
			cfg.Root = root
			cfg.Env = map[string]string{"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"), "RAN": ran}
			k, err := kernel.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			s, err := k.NewSession(kernel.SessionOptions{Dir: root, DiscardSpills: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			for _, tt := range static {
				res, err := s.Run(ctx, "echo > marker; "+tt.script, kernel.RunOptions{})
				if err != nil {
					t.Fatal(err)
				}
				want := line(tt.launcher)
				if !res.Rejected || res.ExitCode != 2 || len(res.Issues) != 1 || res.Issues[0].Message != want || res.Issues[0].Code != kernel.CodeRefused {
					t.Errorf("%s: got exit %d rejected %v issues %+v, want %q", tt.script, res.ExitCode, res.Rejected, res.Issues, want)
				}
				if _, err := os.Stat(filepath.Join(root, "marker")); !os.IsNotExist(err) {
					t.Errorf("%s: something ran before the refusal (%v)", tt.script, err)
				}
			}
			for _, tt := range dynamic {
				res, err := s.Run(ctx, tt.script, kernel.RunOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if res.Rejected || res.ExitCode != 127 || res.Stderr != line(tt.launcher)+"\n" {
					t.Errorf("%s: got exit %d rejected %v stderr %q", tt.script, res.ExitCode, res.Rejected, res.Stderr)
				}
			}
			res, err := s.RunArgv(ctx, []string{"env", "git", "status"}, kernel.RunOptions{})
			if err != nil || res.ExitCode != 2 || !res.Rejected || res.Stderr != line("env")+"\n" {
				t.Errorf("RunArgv env git status: %+v %v", res, err)
			}
		})
	}
	if b, err := os.ReadFile(ran); !os.IsNotExist(err) {
		t.Errorf("a program from PATH ran: %q (%v)", b, err)
	}
}

// retry is what an embedder writes: `retry N COMMAND [ARG]...` runs the
// command through the session's dispatch until it succeeds, at most N
// times. It implements kernel.Launcher, so the guard and the static pass
// look through it.
type retry struct{}

func (retry) Name() string        { return "retry" }
func (retry) Kind() kernel.Kind   { return kernel.Builtin }
func (retry) Description() string { return "Run a command until it succeeds, at most N times." }
func (retry) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"args":{"type":"array","items":{"type":"string"}}}}`)
}

// read is retry's one grammar, for Run and for Unwrap.
func (retry) read(n string, rest int) (int, error) {
	times, err := strconv.Atoi(n)
	if err != nil || times < 1 || rest == 0 {
		return 0, &kernel.Refusal{Command: "retry", What: "invalid count " + kernel.Quote(n), Allowed: []string{"N (at least 1) and a command"}}
	}
	return times, nil
}

func (r retry) Unwrap(words []kernel.Word) (kernel.Launched, bool) {
	if len(words) < 3 {
		return kernel.Launched{}, false
	}
	if _, err := r.read(words[1].Text, len(words)-2); err != nil && !words[1].Opaque {
		return kernel.Launched{}, false
	}
	return kernel.Launched{Words: words[2:]}, true
}

func (r retry) Run(ctx context.Context, c *kernel.Call) error {
	if len(c.Args) < 2 {
		return &kernel.Refusal{Command: "retry", What: "missing count", Allowed: []string{"N (at least 1) and a command"}}
	}
	times, err := r.read(c.Args[1], len(c.Args)-2)
	if err != nil {
		return err
	}
	status := 0
	for i := range times {
		status, err = c.Launch(ctx, c.Args[2:], kernel.LaunchOptions{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr})
		if err != nil {
			return err // the call ended
		}
		// 2 refused, 126 not executable, 127 not found or not allowed:
		// trying again changes nothing.
		if status == 0 || status == 2 || status == 126 || status == 127 {
			break
		}
		fmt.Fprintf(c.Stderr, "retry: attempt %d failed with status %d\n", i+1, status)
	}
	if status != 0 {
		return kernel.ExitStatus(status)
	}
	return nil
}

// flaky fails until it has been called a given number of times.
type flaky struct{ calls *int }

func (flaky) Name() string                 { return "flaky" }
func (flaky) Kind() kernel.Kind            { return kernel.Builtin }
func (flaky) Description() string          { return "Fail twice, then succeed." }
func (flaky) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f flaky) Run(context.Context, *kernel.Call) error {
	*f.calls++
	if *f.calls < 3 {
		return kernel.ExitStatus(1)
	}
	return nil
}

// fromStdin launches the words of its input's first line: a launcher
// the static pass cannot look through, which Call.Launch still guards.
type fromStdin struct{}

func (fromStdin) Name() string                 { return "fromstdin" }
func (fromStdin) Kind() kernel.Kind            { return kernel.Builtin }
func (fromStdin) Description() string          { return "Run the command its input names." }
func (fromStdin) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (fromStdin) Run(ctx context.Context, c *kernel.Call) error {
	b, _ := io.ReadAll(c.Stdin)
	status, err := c.Launch(ctx, strings.Fields(string(b)), kernel.LaunchOptions{Stdout: c.Stdout, Stderr: c.Stderr})
	if err != nil {
		return err
	}
	return kernel.ExitStatus(status)
}

// logs replaces journalctl: the guard refuses journalctl and names it.
type logs struct{}

func (logs) Name() string                            { return "logs" }
func (logs) Kind() kernel.Kind                       { return kernel.Harness }
func (logs) Description() string                     { return "Read a unit's journal." }
func (logs) InputSchema() json.RawMessage            { return json.RawMessage(`{"type":"object"}`) }
func (logs) Run(context.Context, *kernel.Call) error { return nil }
func (logs) Replaces() []string                      { return []string{"journalctl"} }

// An embedder-written launcher runs its command through Call.Launch: the
// session's tools, the guard (statically, through Unwrap, and at
// execution) and the external policy apply to what it launches.
func TestEmbedderLauncher(t *testing.T) {
	calls := 0
	root := t.TempDir()
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root = root
	cfg.Tools = []kernel.Tool{retry{}, fromStdin{}, flaky{&calls}, logs{}}
	s := newSession(t, cfg, kernel.SessionOptions{Dir: root})
	ctx := context.Background()
	const guardStatic = "shelter: 'retry 3 journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — nothing ran"
	const guardRetry = "shelter: 'retry 3 journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — it did not run"
	const guardDynamic = "shelter: 'journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — it did not run"
	const external = "shelter: external command 'curl' is not allowed in this session; allowed: logs and the builtins (help lists them)"
	tests := []struct {
		script   string
		code     int
		rejected bool
		stdout   string
		stderr   string
	}{
		{"retry 5 flaky", 0, false, "", "retry: attempt 1 failed with status 1\nretry: attempt 2 failed with status 1\n"},
		{"retry 2 echo hi", 0, false, "hi\n", ""},
		{"retry 3 journalctl -u nginx", 2, true, "", guardStatic + "\n"},
		{"c=journalctl; retry 3 $c -u nginx", 2, false, "", guardRetry + "\n"},
		{"echo journalctl -u nginx | fromstdin", 2, false, "", guardDynamic + "\n"},
		{"retry 3 curl https://example.com", 127, false, "", external + "\n"},
		// env is builtins' (newSession registers them): what it launches is
		// judged too.
		{"retry 3 env A=1 curl x", 127, false, "", external + "\n"},
		{"retry x flaky", 2, false, "", "retry: invalid count 'x'; allowed: N (at least 1) and a command\n"},
	}
	for _, tt := range tests {
		res, err := s.Run(ctx, tt.script, kernel.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != tt.code || res.Rejected != tt.rejected || res.Stdout != tt.stdout || res.Stderr != tt.stderr {
			t.Errorf("%s:\n got exit %d rejected %v stdout %q stderr %q\nwant exit %d rejected %v stdout %q stderr %q",
				tt.script, res.ExitCode, res.Rejected, res.Stdout, res.Stderr, tt.code, tt.rejected, tt.stdout, tt.stderr)
		}
	}
	if calls != 3 {
		t.Errorf("flaky ran %d times, want 3", calls)
	}
	if b, err := os.ReadDir(root); err == nil {
		for _, e := range b {
			if !strings.HasPrefix(e.Name(), ".shelter") {
				t.Errorf("the sandbox's root holds %s", e.Name())
			}
		}
	}
}
