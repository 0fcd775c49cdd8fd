package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// replica is one container of shelter serve --http, published on a port
// of the host's loopback only.
type replica struct {
	id   string
	url  string // http://127.0.0.1:PORT
	work string // the work volume, on the host
}

// startReplica runs the image as docs/deploy.md's server: a token file
// mounted read-only, the sandbox profile on the work volume. Its network
// is the default bridge, for the published port; nothing in it uses the
// network otherwise. It returns once /healthz answers 200.
func (d *docker) startReplica(t *testing.T, token string) *replica {
	t.Helper()
	secrets := t.TempDir()
	if err := os.Chmod(secrets, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secrets, "token"), []byte(token+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := &replica{work: workDir(t)}
	run := []string{"run", "-d", "--label", label + "=" + d.run, "-p", "127.0.0.1::8765"}
	run = append(run, podFlags...)
	run = append(run,
		"-v", secrets+":/run/secrets/shelter:ro", "-v", rep.work+":/work", d.image,
		"serve", "--http", "0.0.0.0:8765", "--token-file", "/run/secrets/shelter/token",
		"--profile", "sandbox", "--root", "/work")
	r := d.exec(t, "", run...)
	if r.code != 0 {
		t.Fatalf("docker run: %s", r.stderr)
	}
	rep.id = strings.TrimSpace(r.stdout)
	t.Cleanup(func() {
		if t.Failed() {
			logs := d.exec(t, "", "logs", rep.id)
			t.Logf("logs of %.12s:\n%s%s", rep.id, logs.stdout, logs.stderr)
		}
	})
	port := d.exec(t, "", "port", rep.id, "8765/tcp")
	addr, _, _ := strings.Cut(strings.TrimSpace(port.stdout), "\n")
	if port.code != 0 || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("docker port: %q %s", port.stdout, port.stderr)
	}
	rep.url = "http://" + addr
	waitFor(t, 30*time.Second, "/healthz to answer 200", func() bool { return healthz(rep.url) == "200" })
	return rep
}

// healthz is the status of GET /healthz, or why there is none.
func healthz(url string) string {
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url + "/healthz")
	if err != nil {
		return "no answer"
	}
	resp.Body.Close()
	return fmt.Sprint(resp.StatusCode)
}

// waitFor polls cond until it holds, failing the test after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in %s", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect is an MCP client of the replica, with the token.
func connect(t *testing.T, rep *replica, token string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "deploy-test", Version: "0"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: rep.url + "/", HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}
	cs, err := client.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callResult is what a bash call's structured content says.
type callResult struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Rejected bool   `json:"rejected"`
	Session  string `json:"session"`
}

// bash calls the bash tool; session "" names none.
func bash(cs *sdk.ClientSession, command, session string) (*sdk.CallToolResult, callResult, error) {
	args := map[string]any{"command": command}
	if session != "" {
		args["session"] = session
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: args})
	var r callResult
	if err != nil {
		return nil, r, err
	}
	b, _ := json.Marshal(res.StructuredContent)
	err = json.Unmarshal(b, &r)
	return res, r, err
}

// post sends an initialize request, with the token unless it is "".
func post(t *testing.T, url, token string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deploy-test","version":"0"}}}`
	req, _ := http.NewRequest("POST", url+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// testServeHTTP: two replicas as a load balancer would have them; the
// token from the host; a handle taken to the other replica; SIGTERM with
// a call in flight.
func testServeHTTP(t *testing.T, d *docker) {
	const token = "deploy-test-token-0123456789abcdef"
	a, b := d.startReplica(t, token), d.startReplica(t, token)

	if code, body := post(t, a.url, ""); code != http.StatusUnauthorized {
		t.Errorf("without a token: %d %q; want 401", code, body)
	}
	if code, body := post(t, a.url, "wrong"); code != http.StatusUnauthorized {
		t.Errorf("with a wrong token: %d %q; want 401", code, body)
	}
	if code, body := post(t, a.url, token); code != http.StatusOK || !strings.Contains(body, `"serverInfo"`) {
		t.Errorf("with the token: %d %q; want 200 and the initialize result", code, body)
	}

	ca, cb := connect(t, a, token), connect(t, b, token)
	_, first, err := bash(ca, "x=42; echo $x", "")
	if err != nil || first.ExitCode != 0 || first.Stdout != "42\n" || first.Session == "" {
		t.Fatalf("first call: %+v, %v", first, err)
	}
	if _, again, err := bash(ca, "echo $x", first.Session); err != nil || again.Stdout != "42\n" {
		t.Errorf("the session's second call, on its replica: %+v, %v", again, err)
	}
	// The handle on the other replica: refused, nothing run, never a
	// fresh session in its place.
	res, other, err := bash(cb, "echo ran", first.Session)
	if err != nil || !res.IsError || other.ExitCode != 2 || !other.Rejected || other.Stdout != "" ||
		!strings.Contains(other.Stderr, first.Session) {
		t.Errorf("a handle on the other replica: %+v, %v; want refused with a line naming it", other, err)
	} else {
		t.Logf("a handle on the other replica: %q", other.Stderr)
	}

	// SIGTERM with a call in flight on b.
	type outcome struct {
		res callResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		_, r, err := bash(cb, "touch started; sleep 3; echo slept", "")
		done <- outcome{r, err}
	}()
	waitFor(t, 30*time.Second, "call in flight", func() bool {
		_, err := os.Stat(filepath.Join(b.work, "started"))
		return err == nil
	})
	if r := d.exec(t, "", "kill", "--signal", "TERM", b.id); r.code != 0 {
		t.Fatalf("docker kill: %s", r.stderr)
	}
	var health []string // /healthz's answers while the call runs, in order, each once
	var got outcome
	deadline := time.After(time.Minute)
poll:
	for {
		select {
		case got = <-done:
			break poll
		case <-deadline:
			t.Fatal("the call in flight had no answer in a minute")
		default:
		}
		if h := healthz(b.url); len(health) == 0 || health[len(health)-1] != h {
			health = append(health, h)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("/healthz while draining: %s", strings.Join(health, ", "))
	if !slices.Contains(health, "503") {
		t.Errorf("/healthz while draining: %s; want 503", strings.Join(health, ", "))
	}
	if got.err != nil || got.res.ExitCode != 0 || got.res.Stdout != "slept\n" {
		t.Errorf("the call in flight: %+v, %v; want it answered, exit 0, \"slept\\n\"", got.res, got.err)
	}
	if r := d.exec(t, "", "wait", b.id); strings.TrimSpace(r.stdout) != "0" {
		t.Errorf("the container's exit: %q %s; want 0", r.stdout, r.stderr)
	}
}
