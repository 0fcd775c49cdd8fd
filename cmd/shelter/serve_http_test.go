package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const testToken = "s3cret"

// startServeHTTP starts `shelter serve --http 127.0.0.1:0` with a token
// file and args, and returns its URL once it listens. The process is
// killed at the end of the test if it is still running.
func startServeHTTP(t *testing.T, dir string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"serve", "--http", "127.0.0.1:0", "--token-file", tokens, "--cwd", dir}, args...)...)
	cmd.Args[0] = "shelter"
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() {
		t.Fatal("no line from shelter serve")
	}
	url, ok := strings.CutPrefix(sc.Text(), "shelter serve: listening on ")
	if !ok {
		t.Fatalf("first line %q", sc.Text())
	}
	go io.Copy(io.Discard, stderr)
	return url, cmd
}

// tokenTransport adds the test's token to every request.
type tokenTransport struct{}

func (tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+testToken)
	return http.DefaultTransport.RoundTrip(r)
}

func connectServeHTTP(t *testing.T, url string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: tokenTransport{}}, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// bashResult is what these tests read of a call's structured result.
type bashResult struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Session  string `json:"session"`
}

func callBash(t *testing.T, cs *sdk.ClientSession, args map[string]any) (*sdk.CallToolResult, bashResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var r bashResult
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &r)
	return res, r
}

// until polls cond until it holds, failing the test past a deadline.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("30s and still not: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func healthz(url string) int {
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeHTTPDrainAnswersTheCallInFlight sends SIGTERM to
// `shelter serve --http` while a call runs: /healthz turns 503 on the
// listener that stays open, a call that would start a session is
// refused with a line, the call in flight is answered when it ends, and
// the server exits 0.
func TestServeHTTPDrainAnswersTheCallInFlight(t *testing.T) {
	dir := t.TempDir()
	url, cmd := startServeHTTP(t, dir, "--grace", "5m")
	if code := healthz(url); code != http.StatusOK {
		t.Fatalf("healthz before SIGTERM: %d", code)
	}
	cs := connectServeHTTP(t, url)
	type answer struct {
		res *sdk.CallToolResult
		r   bashResult
	}
	inFlight := make(chan answer, 1)
	go func() {
		res, r := callBash(t, cs, map[string]any{"command": "touch started; until [ -e release ]; do sleep 0.01; done; echo answered"})
		inFlight <- answer{res, r}
	}()
	until(t, "the call started", func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	})
	cmd.Process.Signal(syscall.SIGTERM)
	until(t, "/healthz answers 503", func() bool { return healthz(url) == http.StatusServiceUnavailable })

	res, r := callBash(t, connectServeHTTP(t, url), map[string]any{"command": "echo new"})
	if want := "shelter: the server is shutting down and starts no new session; start the session on another server\n"; !res.IsError || r.Stderr != want || r.Stdout != "" {
		t.Fatalf("a new session while draining: stdout %q stderr %q, want the line %q", r.Stdout, r.Stderr, want)
	}
	select {
	case a := <-inFlight:
		t.Fatalf("the call in flight ended before it was released: %+v", a.r)
	default:
	}

	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a := <-inFlight
	if a.res.IsError || a.r.Stdout != "answered\n" {
		t.Fatalf("the call in flight: %+v", a.r)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v", err)
	}
}

// TestServeHTTPDrainPastTheGrace sends SIGTERM while a call that never
// ends runs: past --grace the call is cancelled, its answer (exit 130)
// goes out, and the server exits 0.
func TestServeHTTPDrainPastTheGrace(t *testing.T) {
	dir := t.TempDir()
	url, cmd := startServeHTTP(t, dir, "--grace", "10ms")
	cs := connectServeHTTP(t, url)
	inFlight := make(chan bashResult, 1)
	go func() {
		_, r := callBash(t, cs, map[string]any{"command": "touch started; until false; do sleep 0.01; done"})
		inFlight <- r
	}()
	until(t, "the call started", func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	})
	cmd.Process.Signal(syscall.SIGTERM)
	if r := <-inFlight; r.ExitCode != 130 {
		t.Fatalf("the call past the grace: %+v, want exit code 130", r)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v", err)
	}
}

// TestServeHTTPHandleOfAnotherServer runs two servers with the same
// token, as two replicas behind a load balancer: a session made on A and
// named in a call to B is refused with a line that says where it lives,
// and A still serves it.
func TestServeHTTPHandleOfAnotherServer(t *testing.T) {
	urlA, _ := startServeHTTP(t, t.TempDir())
	urlB, _ := startServeHTTP(t, t.TempDir())
	a, b := connectServeHTTP(t, urlA), connectServeHTTP(t, urlB)
	res, r := callBash(t, a, map[string]any{"command": "x=kept; echo made"})
	if res.IsError || r.Session == "" {
		t.Fatalf("a session on A: %+v", r)
	}
	res, rb := callBash(t, b, map[string]any{"command": "echo $x", "session": r.Session})
	want := "shelter: session '" + r.Session + "' is not on this server: a session lives in the server process that made it; send its calls to that server (session affinity), or call without a session to start a new one here\n"
	if !res.IsError || rb.Stderr != want || rb.Stdout != "" || rb.ExitCode != 2 {
		t.Fatalf("A's session on B: %+v, want the line %q", rb, want)
	}
	if rb.Session != r.Session {
		t.Fatalf("B's refusal names session %q, want A's %q", rb.Session, r.Session)
	}
	// An Mcp-Session-Id changes nothing: the servers are stateless at
	// the MCP level, and the handle is refused all the same.
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo $x","session":"` + r.Session + `"}}}`
	req, _ := http.NewRequest("POST", urlB, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", "from-a")
	resp, err := tokenTransport{}.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if line, _ := json.Marshal(strings.TrimSuffix(want, "\n")); !strings.Contains(string(got), string(line[1:len(line)-1])) {
		t.Fatalf("A's session on B with an Mcp-Session-Id: %s %s", resp.Status, got)
	}
	res, r = callBash(t, a, map[string]any{"command": "echo $x", "session": r.Session})
	if res.IsError || r.Stdout != "kept\n" {
		t.Fatalf("A's session on A after B refused it: %+v", r)
	}
}
