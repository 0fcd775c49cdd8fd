package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// e2eServer is one `shelter serve --profile sandbox` in a git repository
// of its own, and the SDK's client connected to it.
type e2eServer struct {
	repo string
	http bool
	cs   *sdk.ClientSession
	log  *lockedBuffer // serve's stderr
}

// e2eResult is what these tests read of a call's structured content.
type e2eResult struct {
	ExitCode    *int   `json:"exit_code"`
	Stdout      string `json:"stdout"`
	Stderr      string `json:"stderr"`
	Rejected    bool   `json:"rejected"`
	Truncated   bool   `json:"truncated"`
	StdoutBytes int    `json:"stdout_bytes"`
	SpillPath   string `json:"spill_path"`
	Yielded     bool   `json:"yielded"`
	Issues      []struct {
		Severity string `json:"severity"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"issues"`
	Jobs []struct {
		ID      int    `json:"id"`
		PID     int    `json:"pid"`
		Command string `json:"command"`
		Log     string `json:"log"`
	} `json:"jobs"`
	Session string `json:"session"`
	// fields are the content's top-level members as they came.
	fields map[string]json.RawMessage
}

// TestServeEndToEnd is what an agent sees of a real `shelter serve
// --profile sandbox`, through the SDK's own client, on stdio and over
// HTTP, at the newest and the oldest protocol revision the SDK offers
// (the server accepts all it knows): a yielded call reads as running, not
// as a status; jobs behave as bash's; refusals name what may run instead
// and keep the operator's hint to the operator; the bash tool says how
// its state lasts; annotations arrive as declared; and the project's git
// status stays as it was. Each server serves every step in turn.
func TestServeEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: the project is a git repository, and git a declared command")
	}
	t.Parallel()
	revisions := sdk.SupportedProtocolVersions() // newest first
	for _, transport := range []string{"stdio", "http"} {
		for _, revision := range []string{revisions[0], revisions[len(revisions)-1]} {
			t.Run(transport+"/"+revision, func(t *testing.T) {
				t.Parallel()
				s := startE2E(t, transport == "http", revision)
				t.Run("annotations", s.annotations)
				t.Run("description", s.description)
				t.Run("yield", s.yield)
				t.Run("jobs", s.jobs)
				t.Run("refused external", s.refusedExternal)
				t.Run("unknown verb", s.unknownVerb)
				t.Run("sessions", s.sessions)
				t.Run("clean project", s.cleanProject)
			})
		}
	}
}

// startE2E makes a git repository with one commit and starts
// `shelter serve --profile sandbox` in it with examples/tools.yaml and
// examples/harness.yaml, on stdio or over HTTP, and connects at
// revision. The client and the server are ended with the test.
func startE2E(t *testing.T, overHTTP bool, revision string) *e2eServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	s := &e2eServer{repo: t.TempDir(), http: overHTTP, log: &lockedBuffer{}}
	gitIn(t, s.repo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(s.repo, "README"), []byte("a project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, s.repo, "add", "README")
	gitIn(t, s.repo, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "start")

	args := []string{"serve", "--profile", "sandbox", "--cwd", s.repo, "--allow-external", "uname",
		"--tools", filepath.Join(examples, "tools.yaml"), "--tools", filepath.Join(examples, "harness.yaml")}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	opts := &sdk.ClientSessionOptions{ProtocolVersion: revision}
	var transport sdk.Transport
	if overHTTP {
		tokens := filepath.Join(t.TempDir(), "tokens")
		if err := os.WriteFile(tokens, []byte(testToken+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, append(args, "--http", "127.0.0.1:0", "--token-file", tokens)...)
		cmd.Args[0] = "shelter"
		cmd.Stderr = s.log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("shelter serve --http after SIGTERM: %v\n%s", err, s.log.String())
			}
		})
		var url string
		until(t, "shelter serve listens", func() bool {
			first, _, ok := strings.Cut(s.log.String(), "\n")
			url, _ = strings.CutPrefix(first, "shelter serve: listening on ")
			return ok
		})
		transport = &sdk.StreamableClientTransport{
			Endpoint: url, HTTPClient: &http.Client{Transport: tokenTransport{}}, DisableStandaloneSSE: true,
		}
	} else {
		cmd := exec.Command(exe, args...)
		cmd.Args[0] = "shelter"
		cmd.Stderr = s.log
		transport = &sdk.CommandTransport{Command: cmd}
	}
	cs, err := client.Connect(context.Background(), transport, opts)
	if err != nil {
		t.Fatalf("connect at %s: %v\n%s", revision, err, s.log.String())
	}
	// Closing the client on stdio ends stdin and waits for the server to
	// exit.
	t.Cleanup(func() {
		if err := cs.Close(); err != nil && !overHTTP {
			t.Errorf("shelter serve on stdio: %v\n%s", err, s.log.String())
		}
	})
	s.cs = cs
	if got := cs.InitializeResult().ProtocolVersion; got != revision {
		t.Fatalf("negotiated %s, want %s", got, revision)
	}
	return s
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	// The host's configuration (a global excludes file) must not hide
	// what a session leaves.
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// call calls tool with args and reads its result.
func (s *e2eServer) call(t *testing.T, tool string, args map[string]any) (*sdk.CallToolResult, e2eResult) {
	t.Helper()
	res, err := s.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var r e2eResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s %v: structured content %s: %v", tool, args, b, err)
	}
	if err := json.Unmarshal(b, &r.fields); err != nil {
		t.Fatal(err)
	}
	return res, r
}

// bash runs command in session ("" for none).
func (s *e2eServer) bash(t *testing.T, command, session string) (*sdk.CallToolResult, e2eResult) {
	t.Helper()
	args := map[string]any{"command": command}
	if session != "" {
		args["session"] = session
	}
	return s.call(t, "bash", args)
}

// handleLine is how a call's text ends: over HTTP with the handle to
// pass next (a refusal's with the handle alone); on stdio, whose one
// default session needs none, with nothing.
func (s *e2eServer) handleLine(r e2eResult) string {
	switch {
	case !s.http:
		return ""
	case r.Rejected:
		return "\nsession: " + r.Session
	default:
		return "\nsession: " + r.Session + " (pass it as session to go on in this shell)"
	}
}

func resultText(res *sdk.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	tc, _ := res.Content[0].(*sdk.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}

func listTools(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	tools := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	return tools
}

// annotations: the hints of examples/tools.yaml and harness.yaml as
// declared, the cautious ones where nothing is declared.
func (s *e2eServer) annotations(t *testing.T) {
	tools := listTools(t, s.cs)
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	want := map[string]hints{
		"git_log":       {readOnly: true},
		"git_status":    {readOnly: true},
		"git_diff":      {readOnly: true},
		"git_show":      {readOnly: true},
		"git":           {readOnly: true},
		"go_version":    {readOnly: true},
		"go_env":        {readOnly: true},
		"go_vet":        {readOnly: true},
		"git_add":       {destructive: true, openWorld: true},
		"git_commit":    {destructive: true, openWorld: true},
		"go_build":      {destructive: true, openWorld: true},
		"logs":          {readOnly: true},
		"word_count":    {readOnly: true},
		"restart":       {destructive: true, idempotent: true},
		"bash":          {destructive: true, openWorld: true},
		"session_close": {destructive: true, idempotent: true},
	}
	for name, w := range want {
		tool := tools[name]
		if tool == nil || tool.Annotations == nil {
			t.Errorf("%s: no tool or no annotations: %+v", name, tool)
			continue
		}
		a := tool.Annotations
		if a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: destructiveHint and openWorldHint not set explicitly: %+v", name, a)
			continue
		}
		got := hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
		if got != w {
			t.Errorf("%s: annotations %+v, want %+v", name, got, w)
		}
	}
}

// description: the bash tool says how its state lasts on this
// transport, and when a call yields.
func (s *e2eServer) description(t *testing.T) {
	state := "A call without the session argument runs in the server's one default session."
	if s.http {
		state = "A call without the session argument runs in a new, empty shell: a `cd` or a variable set there is gone in the next call. To go on in a shell, pass the session handle its result names."
	}
	want := "Run bash source on shelter, a hermetic shell (profile sandbox; each call times out after 2m0s; 32 KiB of each stream kept, the rest in a spill file). " +
		"State persists per session: working directory, variables, functions and background jobs. " + state +
		" The result holds stdout, stderr and the exit code." +
		" A call still running after yield_ms (default 45s; 0 never) returns what it printed so far and goes on as a background job of its session:" +
		" that result has no exit code, it says `still running as job %N`; collect it with `wait %N` (which gives its exit code) in the same session." +
		" Declared commands: git (log, status, diff, show, add, commit, init, branch, switch, checkout), go (version, env, env-json, build, test, vet, mod), python3 (unittest, pytest)." +
		" Harness tools: logs, restart, word_count. `help NAME` prints a command's usage."
	if got := listTools(t, s.cs)["bash"].Description; got != want {
		t.Errorf("bash's description\n%s\nwant\n%s", got, want)
	}
}

// next is the handle to pass to go on in r's session: over HTTP the one
// its text names; on stdio none, the default session being where a call
// without one runs.
func (s *e2eServer) next(r e2eResult) string {
	if s.http {
		return r.Session
	}
	return ""
}

// shelterDir is where a sandbox session keeps what it writes beneath
// the project: its TMPDIR and HOME, spill files and jobs' logs.
func (s *e2eServer) shelterDir() string { return filepath.Join(s.repo, ".shelter") + "/" }

// yield: a call still running at yield_ms reads as running, with no
// exit code anywhere, and names the job to collect; collecting it gives
// its exit code, and its log the rest of its output.
func (s *e2eServer) yield(t *testing.T) {
	// Still running at any yield point before the test creates release,
	// which it removes before it ends.
	const script = "echo started; until [ -e release ]; do sleep 0.01; done; rm release; echo finished; exit 7"
	res, r := s.call(t, "bash", map[string]any{"command": script, "yield_ms": 50})
	if res.IsError || !r.Yielded || r.ExitCode != nil || string(r.fields["exit_code"]) != "null" || r.Stdout != "started\n" {
		t.Fatalf("yielded call: isError %v, %s", res.IsError, structuredJSON(res))
	}
	if len(r.Jobs) != 1 || r.Jobs[0].ID != 1 || r.Jobs[0].Command != script || !strings.HasPrefix(r.Jobs[0].Log, s.shelterDir()) {
		t.Fatalf("yielded call's jobs: %+v", r.Jobs)
	}
	log := r.Jobs[0].Log
	want := "started\nstill running as job %1; collect with wait %1 (its output goes on in " + log + ")" + s.handleLine(r)
	if text := resultText(res); text != want {
		t.Fatalf("yielded call's text\n%q\nwant\n%q", text, want)
	}

	if err := os.WriteFile(filepath.Join(s.repo, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, c := s.bash(t, "wait %1; status=$?; cat '"+log+"'; exit $status", s.next(r))
	if !res.IsError || c.ExitCode == nil || *c.ExitCode != 7 || c.Yielded || c.Stdout != "finished\n" || c.Stderr != "" {
		t.Fatalf("wait %%1 and its log: isError %v, %s", res.IsError, structuredJSON(res))
	}
	if text, want := resultText(res), "finished\nexit code: 7"+s.handleLine(c); text != want {
		t.Fatalf("wait %%1 and its log: text %q, want %q", text, want)
	}
	if _, err := os.Stat(filepath.Join(s.repo, "release")); !os.IsNotExist(err) {
		t.Fatalf("the job did not run to its end: release is still there (%v)", err)
	}
}

// jobs: a background job's pid is $!, as jobs -p prints it, and jobs
// lists it as bash does.
func (s *e2eServer) jobs(t *testing.T) {
	res, r := s.bash(t, "sleep 5 & echo $!; jobs -p; jobs", "")
	pid, _, _ := strings.Cut(r.Stdout, "\n")
	if n, err := strconv.Atoi(pid); err != nil || n <= 0 {
		t.Fatalf("$! is %q, not a pid: %s", pid, structuredJSON(res))
	}
	if want := pid + "\n" + pid + "\n[1]+  Running                 sleep 5 &\n"; res.IsError || r.Stdout != want || r.Stderr != "" {
		t.Fatalf("stdout %q, want %q: %s", r.Stdout, want, structuredJSON(res))
	}
	if len(r.Jobs) != 1 || r.Jobs[0].ID != 1 || strconv.Itoa(r.Jobs[0].PID) != pid || r.Jobs[0].Command != "sleep 5 &" || !strings.HasPrefix(r.Jobs[0].Log, s.shelterDir()) {
		t.Fatalf("the result's jobs: %+v", r.Jobs)
	}
	if text, want := resultText(res), r.Stdout+"exit code: 0"+s.handleLine(r); text != want {
		t.Fatalf("text %q, want %q", text, want)
	}
}

// refusedExternal: a program from PATH the sandbox does not run is
// refused with a line that names what the agent may run instead; the
// way to allow it is the operator's, in the Result's issues and serve's
// log, never in the agent's text.
func (s *e2eServer) refusedExternal(t *testing.T) {
	const line = "shelter: external command 'curl' is not allowed in this session; allowed: git, go, logs, python3, restart, uname, word_count and the builtins (help lists them)"
	const hint = "shelter: external command 'curl' is not allowed in this session; to allow it, add 'curl' to Config.AllowExternal (shelter --allow-external curl)"
	res, r := s.bash(t, "curl -s https://example.com", "")
	if !res.IsError || r.ExitCode == nil || *r.ExitCode != 127 || r.Stdout != "" || r.Stderr != line+"\n" {
		t.Fatalf("curl: isError %v, %s", res.IsError, structuredJSON(res))
	}
	if text, want := resultText(res), "--- stderr ---\n"+line+"\nexit code: 127"+s.handleLine(r); text != want {
		t.Fatalf("curl's text\n%q\nwant\n%q", text, want)
	}
	if len(r.Issues) != 1 || r.Issues[0].Severity != "warning" || r.Issues[0].Code != "external" || r.Issues[0].Message != hint {
		t.Fatalf("curl's issues %+v, want one warning 'external' with %q", r.Issues, hint)
	}
	until(t, "serve's log has the operator's hint", func() bool { return strings.Contains(s.log.String(), hint+"\n") })

	// The allowed external the line names runs.
	host, err := exec.Command("uname", "-s").Output()
	if err != nil {
		t.Fatal(err)
	}
	if res, r := s.bash(t, "uname -s", ""); res.IsError || r.Stdout != string(host) {
		t.Fatalf("uname -s: %s, want stdout %q", structuredJSON(res), host)
	}
}

// unknownVerb: a verb a declared command does not declare is refused
// before anything runs, with the verbs it has.
func (s *e2eServer) unknownVerb(t *testing.T) {
	const line = "git: unknown verb 'push'; allowed: add, branch, checkout, commit, diff, init, log, show, status, switch"
	res, r := s.bash(t, "git push origin main", "")
	if !res.IsError || !r.Rejected || r.ExitCode == nil || *r.ExitCode != 2 || r.Stdout != "" || r.Stderr != line+"\n" {
		t.Fatalf("git push: isError %v, %s", res.IsError, structuredJSON(res))
	}
	if text, want := resultText(res), "--- stderr ---\n"+line+"\nexit code: 2"+s.handleLine(r); text != want {
		t.Fatalf("git push's text\n%q\nwant\n%q", text, want)
	}
}

// sessions: over HTTP a call without a session is a new shell, its text
// names the handle to go on, and the handle keeps the state until it is
// closed; on stdio every call goes on in the default session.
func (s *e2eServer) sessions(t *testing.T) {
	res, first := s.bash(t, `cd "$TMPDIR" && pwd`, "")
	tmp := strings.TrimSuffix(first.Stdout, "\n")
	if res.IsError || !strings.HasPrefix(tmp, s.shelterDir()) || first.Session == "" {
		t.Fatalf("cd $TMPDIR: %s", structuredJSON(res))
	}
	if text, want := resultText(res), first.Stdout+"exit code: 0"+s.handleLine(first); text != want {
		t.Fatalf("cd $TMPDIR: text %q, want %q", text, want)
	}
	if !s.http {
		if _, r := s.bash(t, "pwd", ""); r.Stdout != tmp+"\n" || r.Session != first.Session {
			t.Fatalf("pwd after cd $TMPDIR in the default session: %+v", r)
		}
		if _, r := s.bash(t, "cd "+s.repo+" && pwd", ""); r.Stdout != s.repo+"\n" {
			t.Fatalf("cd back: %+v", r)
		}
		return
	}
	if _, r := s.bash(t, "pwd", ""); r.Stdout != s.repo+"\n" || r.Session == "" || r.Session == first.Session {
		t.Fatalf("pwd without a session: %+v, want %s in a new session", r, s.repo)
	}
	if _, r := s.bash(t, "pwd", first.Session); r.Stdout != tmp+"\n" || r.Session != first.Session {
		t.Fatalf("pwd in the first session: %+v, want %s", r, tmp)
	}

	// A closed handle is refused, and not named again as one to pass.
	res, closed := s.call(t, "session_close", map[string]any{"session": first.Session})
	if res.IsError || closed.Session != "" || resultText(res) != "session closed\nexit code: 0" {
		t.Fatalf("session_close: %q %s", resultText(res), structuredJSON(res))
	}
	res, r := s.bash(t, "pwd", first.Session)
	line := "shelter: unknown session '" + first.Session + "': it was closed, expired or never existed; call without a session to start a new one"
	if !res.IsError || !r.Rejected || r.Session != "" || r.Stderr != line+"\n" || resultText(res) != "--- stderr ---\n"+line+"\nexit code: 2" {
		t.Fatalf("a call with the closed handle: %q %s", resultText(res), structuredJSON(res))
	}
}

// cleanProject: what a session writes to HOME, TMPDIR and the caches,
// a spilled stream and a job's log all stay beneath .shelter, which git
// ignores: the project's status is what it was.
func (s *e2eServer) cleanProject(t *testing.T) {
	res, r := s.bash(t, `mkdir -p ~/.cache/x ~/.config && echo hi > ~/.config/y && echo x > "$TMPDIR/t" && echo "$HOME" && echo "$TMPDIR" && go env GOCACHE`, "")
	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	if res.IsError || len(lines) != 3 {
		t.Fatalf("writing HOME and TMPDIR: %s", structuredJSON(res))
	}
	home, tmp, gocache := lines[0], lines[1], lines[2]
	if !strings.HasPrefix(tmp, s.shelterDir()) || home != tmp+"/home" || gocache != home+"/.cache/go-build" {
		t.Fatalf("HOME %s, TMPDIR %s, GOCACHE %s: not beneath %s", home, tmp, gocache, s.shelterDir())
	}
	if b, err := os.ReadFile(filepath.Join(home, ".config", "y")); err != nil || string(b) != "hi\n" {
		t.Fatalf("~/.config/y: %q %v", b, err)
	}

	var full strings.Builder
	for i := 1; i <= 20000; i++ {
		full.WriteString(strconv.Itoa(i) + "\n")
	}
	res, r = s.bash(t, "seq 1 20000", "")
	if res.IsError || !r.Truncated || r.StdoutBytes != full.Len() || !strings.HasPrefix(r.SpillPath, s.shelterDir()) {
		t.Fatalf("seq 1 20000: %+v", r)
	}
	marker := "\n[output truncated: " + strconv.Itoa(full.Len()) + " bytes total; full output at " + r.SpillPath + "]\n"
	head, tail, ok := strings.Cut(r.Stdout, marker)
	if !ok || !strings.HasPrefix(full.String(), head) || !strings.HasSuffix(full.String(), tail) || len(head)+len(tail) > 32<<10 {
		t.Fatalf("seq 1 20000: stdout %d bytes, not a head and a tail around %q", len(r.Stdout), marker)
	}
	if b, err := os.ReadFile(r.SpillPath); err != nil || string(b) != full.String() {
		t.Fatalf("the spill file holds %d bytes (%v), want seq's %d", len(b), err, full.Len())
	}

	if got := gitIn(t, s.repo, "status", "--short"); got != "" {
		t.Errorf("git status --short:\n%s", got)
	}
	if got, want := gitIn(t, s.repo, "status", "--short", "--ignored"), "!! .shelter/\n"; got != want {
		t.Errorf("git status --short --ignored:\n%swant\n%s", got, want)
	}
}

func structuredJSON(res *sdk.CallToolResult) string {
	b, _ := json.Marshal(res.StructuredContent)
	return string(b)
}
