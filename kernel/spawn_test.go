package kernel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/internal/proctest"
	"github.com/shelter-sh/shelter/kernel"
)

func runWith(t testing.TB, s *kernel.Session, script string, opts kernel.RunOptions) kernel.Result {
	t.Helper()
	res, err := s.Run(context.Background(), script, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// liveWith lists the live processes whose command line contains marker,
// as "pid: command line".
func liveWith(marker string) []string {
	var found []string
	for _, p := range proctest.With(marker) {
		found = append(found, fmt.Sprintf("%d: %s", p.PID, p.Args))
	}
	return found
}

// eventually polls cond until it holds, failing after a deadline.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func noneLeft(t testing.TB, marker string) {
	t.Helper()
	eventually(t, "processes with "+marker+" gone", func() bool { return len(liveWith(marker)) == 0 })
}

// slow bounds how long a call may take on a loaded machine. The sleeps
// of the timeout tests last far longer, so a call that waited for them
// still fails.
const slow = 30 * time.Second

// timedOutCall is a call that ran into its timeout after its script was
// ready.
type timedOutCall struct {
	kernel.Result
	Timeout time.Duration
	// Took is how long Run took; SinceReady how long it took after the
	// script printed "ready".
	Took, SinceReady time.Duration
}

// readyClock is a call's live stdout; it notes when "ready" arrives.
type readyClock struct {
	mu  sync.Mutex
	out []byte
	at  time.Time
}

func (c *readyClock) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = append(c.out, p...)
	if c.at.IsZero() && bytes.HasPrefix(c.out, []byte("ready\n")) {
		c.at = time.Now()
	}
	return len(p), nil
}

func (c *readyClock) readyAt() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

// timeoutAfterReady runs script, which prints "ready" once set up, with a
// timeout of 250ms, doubled until the script was ready before the timeout
// fired: on a loaded machine the setup can take longer than the first.
func timeoutAfterReady(t *testing.T, s *kernel.Session, script string) timedOutCall {
	t.Helper()
	for timeout := 250 * time.Millisecond; ; timeout *= 2 {
		clock := &readyClock{}
		start := time.Now()
		res := runWith(t, s, script, kernel.RunOptions{Timeout: timeout, Stdout: clock})
		end := time.Now()
		if ready := clock.readyAt(); !ready.IsZero() {
			return timedOutCall{res, timeout, end.Sub(start), end.Sub(ready)}
		}
		if timeout >= 16*time.Second {
			t.Fatalf("%s: not ready within a %s timeout: exit %d stdout %q stderr %q", script, timeout, res.ExitCode, res.Stdout, res.Stderr)
		}
		t.Logf("%s: not ready within %s, trying a longer timeout", script, timeout)
	}
}

// The whole process group of a timed-out command ends,
// within the grace.
func TestTimeoutEndsProcessGroup(t *testing.T) {
	s := newSession(t, kernel.Config{KillGrace: 200 * time.Millisecond}, kernel.SessionOptions{})
	call := timeoutAfterReady(t, s, "sh -c 'sleep 100.101 & echo ready; sleep 100.102'")
	if call.SinceReady >= slow {
		t.Errorf("returned %s after the script was ready: it waited for the sleeps", call.SinceReady)
	}
	if call.ExitCode != 124 || !call.TimedOut {
		t.Errorf("exit %d timed_out %v stdout %q stderr %q, want 124 true", call.ExitCode, call.TimedOut, call.Stdout, call.Stderr)
	}
	noneLeft(t, "sleep 100.10")
}

// A child that ignores SIGTERM gets SIGKILL after the
// grace.
func TestTermTrapKilledAfterGrace(t *testing.T) {
	const grace = 300 * time.Millisecond
	s := newSession(t, kernel.Config{KillGrace: grace}, kernel.SessionOptions{})
	call := timeoutAfterReady(t, s, `sh -c 'trap "" TERM; echo ready; sleep 100.201; sleep 100.202'`)
	if call.ExitCode != 124 || call.Stdout != "ready\n" {
		t.Errorf("exit %d stdout %q stderr %q, want 124 and ready", call.ExitCode, call.Stdout, call.Stderr)
	}
	if call.Took < call.Timeout+grace {
		t.Errorf("returned after %s: before the timeout (%s) plus the grace", call.Took, call.Timeout)
	}
	if call.SinceReady >= slow {
		t.Errorf("returned %s after the script was ready: SIGKILL came late", call.SinceReady)
	}
	noneLeft(t, "sleep 100.20")
}

// greetTool is a tiny tool registered in a session.
type greetTool struct{}

func (greetTool) Name() string                 { return "greet" }
func (greetTool) Kind() kernel.Kind            { return kernel.Harness }
func (greetTool) Description() string          { return "Say hello." }
func (greetTool) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (greetTool) Run(_ context.Context, c *kernel.Call) error {
	fmt.Fprintf(c.Stdout, "hello %s\n", strings.Join(c.Args[1:], " "))
	return nil
}

// An executable without #! runs as a script of the same
// session: it reaches the session's tools, and the session's policy.
func TestShebanglessScriptUsesSessionTools(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "spawned")
	fakeCurl(t, dir, marker)
	script := "greet from script\necho \"args: $*\"\ncurl x\necho \"curl: $?\"\n"
	if err := os.WriteFile(filepath.Join(dir, "script"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The allowed script is found in shelter's own PATH, once.
	hostPath := func(name string) (string, bool) { return dir, name == "PATH" }
	s := newSession(t, kernel.Config{Externals: kernel.ExternalsDenied, AllowExternal: []string{"script"}, LookupEnv: hostPath}, kernel.SessionOptions{
		Dir:   dir,
		Tools: []kernel.Tool{greetTool{}},
	})
	res := runWith(t, s, "./script a b", kernel.RunOptions{})
	want := "hello from script\nargs: a b\ncurl: 127\n"
	if res.ExitCode != 0 || res.Stdout != want {
		t.Errorf("exit %d stdout %q, want 0 %q (stderr %q)", res.ExitCode, res.Stdout, want, res.Stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the script spawned curl")
	}
}

// Exit codes follow bash: 126 not executable, 127 not found, 128+n killed.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "noexec"), []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{Dir: dir})
	tests := []struct {
		script string
		code   int
		stderr string
	}{
		{"no-such-command-xyz", 127, "shelter: no-such-command-xyz: command not found\n"},
		{"./missing", 127, "shelter: ./missing: No such file or directory\n"},
		{"./adir", 126, "shelter: ./adir: Is a directory\n"},
		{"./noexec", 126, "shelter: ./noexec: Permission denied\n"},
		{"sh -c 'kill -KILL $$'", 137, ""},
		{"sh -c 'exit 42'", 42, ""},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			res := runWith(t, s, tt.script, kernel.RunOptions{})
			if res.ExitCode != tt.code || res.Stderr != tt.stderr {
				t.Errorf("exit %d stderr %q, want %d %q", res.ExitCode, res.Stderr, tt.code, tt.stderr)
			}
		})
	}
}

// fakeCurl writes a curl into dir that leaves marker behind when it runs.
func fakeCurl(t *testing.T, dir, marker string) {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\necho spawned >%s\n", marker)
	if err := os.WriteFile(filepath.Join(dir, "curl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// With externals denied, curl is refused however it is
// launched, and nothing is spawned.
func TestExternalsDeniedEverywhere(t *testing.T) {
	scripts := []string{
		"curl x",
		"/usr/bin/curl x",
		"$BIN/curl x",
		"env curl x",
		"env -i A=1 curl x",
		"command curl x",
		"timeout 5 curl x",
		"nohup curl x",
		"nice curl x",
		"echo x | xargs curl",
		"echo x | xargs -I{} curl {}",
		"exec curl x",
		"eval 'curl x'",
		"timeout 5 env nohup curl x",
	}
	for _, allowed := range [][]string{nil, {"sh", "cat"}} {
		want := "shelter: external command 'curl' is not allowed in this session; allowed: the builtins (help lists them)\n"
		if allowed != nil {
			want = "shelter: external command 'curl' is not allowed in this session; allowed: cat, sh and the builtins (help lists them)\n"
		}
		for _, script := range scripts {
			t.Run(fmt.Sprintf("%s/allowed=%v", script, allowed), func(t *testing.T) {
				bin := t.TempDir()
				marker := filepath.Join(t.TempDir(), "spawned")
				fakeCurl(t, bin, marker)
				s := newSession(t, kernel.Config{Externals: kernel.ExternalsDenied, AllowExternal: allowed},
					kernel.SessionOptions{Env: map[string]string{"PATH": bin + ":/usr/bin:/bin", "BIN": bin}})
				res := runWith(t, s, script, kernel.RunOptions{})
				if res.ExitCode != 127 || res.Stderr != want || res.Stdout != "" {
					t.Errorf("exit %d stdout %q stderr %q, want 127 and %q", res.ExitCode, res.Stdout, res.Stderr, want)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Error("curl was spawned")
				}
			})
		}
	}
}

// The fake curl of the test above does run when externals are allowed.
func TestExternalsAllowedRunsFake(t *testing.T) {
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "spawned")
	fakeCurl(t, bin, marker)
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{Env: map[string]string{"PATH": bin + ":/usr/bin:/bin"}})
	if res := runWith(t, s, "echo x | xargs curl", kernel.RunOptions{}); res.ExitCode != 0 {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("curl did not run:", err)
	}
}

// An allowed name runs; a path is allowed only where the name resolves.
func TestAllowExternalList(t *testing.T) {
	bin := t.TempDir()
	fakeCurl(t, bin, filepath.Join(t.TempDir(), "m"))
	s := newSession(t, kernel.Config{Externals: kernel.ExternalsDenied, AllowExternal: []string{"sh", "curl"}},
		kernel.SessionOptions{Env: map[string]string{"PATH": "/usr/bin:/bin:" + bin, "BIN": bin}})
	if res := runWith(t, s, "sh -c 'echo ok'", kernel.RunOptions{}); res.ExitCode != 0 || res.Stdout != "ok\n" {
		t.Errorf("allowed sh: %+v", res)
	}
	res := runWith(t, s, "$BIN/curl", kernel.RunOptions{})
	if _, err := os.Stat("/usr/bin/curl"); err == nil && res.ExitCode != 127 {
		t.Errorf("curl outside the PATH resolution ran: %+v", res)
	}
}

// A pipeline whose first stage never ends is ended by the
// timeout.
func TestPipelineTimeout(t *testing.T) {
	s := newSession(t, kernel.Config{KillGrace: 500 * time.Millisecond}, kernel.SessionOptions{})
	call := timeoutAfterReady(t, s, "sh -c 'echo ready; exec sleep 100.701' | cat")
	if call.SinceReady >= slow {
		t.Errorf("returned %s after the pipeline was ready: it waited for sleep", call.SinceReady)
	}
	if call.ExitCode != 124 {
		t.Errorf("exit %d stdout %q stderr %q, want 124", call.ExitCode, call.Stdout, call.Stderr)
	}
	noneLeft(t, "sleep 100.701")
}

// Read takes one line of the call's input; the next
// command gets the rest.
func TestReadThenCat(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := runWith(t, s, `read x; cat; echo "x=$x"`, kernel.RunOptions{Stdin: strings.NewReader("a\nb\n")})
	if res.ExitCode != 0 || res.Stdout != "b\nx=a\n" {
		t.Errorf("exit %d stdout %q, want b and x=a", res.ExitCode, res.Stdout)
	}
	res = runWith(t, s, `echo "x=$x"`, kernel.RunOptions{})
	if res.Stdout != "x=a\n" {
		t.Errorf("x did not persist: %q", res.Stdout)
	}
}

// Without input, a reader of stdin sees end of file at once.
func TestNoInputIsDevNull(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := runWith(t, s, "cat; wc -c", kernel.RunOptions{Timeout: 10 * time.Second})
	if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "0" {
		t.Errorf("%+v", res)
	}
}

// A pipe is streamed: a producer that never ends does not keep its
// consumer from answering.
func TestPipeStreamed(t *testing.T) {
	s := newSession(t, kernel.Config{KillGrace: 100 * time.Millisecond}, kernel.SessionOptions{})
	res := runWith(t, s, "yes | head -n 2", kernel.RunOptions{Timeout: 10 * time.Second})
	if res.ExitCode != 0 || res.Stdout != "y\ny\n" {
		t.Errorf("%+v", res)
	}
}

// Children get the session's exported variables exactly.
func TestChildEnvIsSessionEnv(t *testing.T) {
	t.Setenv("SHELTER_TEST_SECRET", "leak")
	s := newSession(t, kernel.Config{CoreEnv: []string{}}, kernel.SessionOptions{Env: map[string]string{"A": "1"}})
	res := runWith(t, s, "B=2; export C=3; /usr/bin/printenv", kernel.RunOptions{})
	got := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	slices.Sort(got)
	var names []string
	for _, kv := range got {
		names = append(names, strings.SplitN(kv, "=", 2)[0])
	}
	want := []string{"A", "C", "LANG", "PWD", "TERM", "TMPDIR"}
	if !slices.Equal(names, want) {
		t.Errorf("child env names %v, want %v", names, want)
	}
}

// A shebang-less script sees the session's variables only: no HOME from
// the host when the session has none, no unexported variable.
func TestShebanglessScriptSeesExportedOnly(t *testing.T) {
	s := newSession(t, kernel.Config{CoreEnv: []string{"PATH"}}, kernel.SessionOptions{})
	if err := os.WriteFile(filepath.Join(s.Dir(), "script"), []byte("echo \"home=$HOME plain=$plain exp=$EXP\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := runWith(t, s, "plain=p; export EXP=e; ./script", kernel.RunOptions{})
	if res.ExitCode != 0 || res.Stdout != "home= plain= exp=e\n" {
		t.Errorf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}
