package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shelter-sh/shelter/internal/proctest"
	"github.com/shelter-sh/shelter/mcp"
)

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// serveHTTP starts the server on a loopback listener.
func serveHTTP(t testing.TB, opts mcp.Options, tokens []string) (*mcp.Server, *httptest.Server) {
	t.Helper()
	if opts.Kernel == nil {
		opts.Kernel = newKernel(t)
	}
	if opts.Session.Dir == "" {
		opts.Session.Dir = t.TempDir()
	}
	srv, err := mcp.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler(tokens))
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return srv, hs
}

func connectHTTP(t testing.TB, url, token, version string) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer{token}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestHTTPSessions(t *testing.T) {
	_, hs := serveHTTP(t, mcp.Options{}, nil)
	var wg sync.WaitGroup
	for c := range 2 {
		wg.Go(func() {
			cs := connectHTTP(t, hs.URL, "", "")
			res, r := call(t, cs, "bash", map[string]any{"command": fmt.Sprintf("mkdir -p d%d && cd d%d && v=%d", c, c, c)})
			if res.IsError || r.Session == "" || !strings.HasSuffix(text(res), "\nsession: "+r.Session+" (pass it as session to go on in this shell)") {
				t.Errorf("client %d: first call %+v %q", c, r, text(res))
				return
			}
			h := r.Session
			for i := range 50 {
				res, r := call(t, cs, "bash", map[string]any{"command": "echo $v ${PWD##*/}", "session": h})
				if want := fmt.Sprintf("%d d%d\n", c, c); res.IsError || r.Stdout != want || r.Session != h {
					t.Errorf("client %d call %d: %q, want %q", c, i, r.Stdout, want)
					return
				}
			}
		})
	}
	wg.Wait()

	cs := connectHTTP(t, hs.URL, "", "")
	res, r := call(t, cs, "bash", map[string]any{"command": "echo", "session": "0123abcd"})
	if !res.IsError || r.Stderr != "shelter: unknown session '0123abcd': it was closed, expired or never existed; call without a session to start a new one\n" {
		t.Fatalf("an unknown handle: %q", r.Stderr)
	}
}

func TestHTTPSessionClose(t *testing.T) {
	srv, hs := serveHTTP(t, mcp.Options{}, nil)
	cs := connectHTTP(t, hs.URL, "", "")
	marker := "40.0" + strings.Repeat("2", 6)
	_, r := call(t, cs, "bash", map[string]any{"command": "sleep " + marker + " &"})
	if len(r.Jobs) != 1 || srv.Sessions() != 1 {
		t.Fatalf("the job: %+v, %d sessions", r, srv.Sessions())
	}
	res, _ := call(t, cs, "session_close", map[string]any{"session": r.Session})
	if res.IsError || srv.Sessions() != 0 {
		t.Fatalf("session_close: %q", text(res))
	}
	waitFor(t, "the job to end", func() bool { return len(proctest.With(marker)) == 0 })
	res, _ = call(t, cs, "bash", map[string]any{"command": "true", "session": r.Session})
	if !res.IsError || !strings.Contains(text(res), "unknown session") {
		t.Fatalf("a closed session: %q", text(res))
	}
}

// Closing a session, or the server, ends the calls running in it: they
// answer as cancelled.
func TestCloseEndsRunningCalls(t *testing.T) {
	for _, how := range []string{"session_close", "server"} {
		t.Run(how, func(t *testing.T) {
			srv, hs := serveHTTP(t, mcp.Options{}, nil)
			cs := connectHTTP(t, hs.URL, "", "")
			_, r := call(t, cs, "bash", map[string]any{"command": "true"})
			marker := "40.0" + strings.Repeat("3", 6)
			answered := make(chan *sdk.CallToolResult, 1)
			go func() {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep " + marker, "session": r.Session}})
				if err != nil {
					res = &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}
				}
				answered <- res
			}()
			waitFor(t, "the call's sleep to start", func() bool { return len(proctest.With(marker)) == 1 })
			if how == "server" {
				srv.Close()
			} else if res, _ := call(t, cs, "session_close", map[string]any{"session": r.Session}); res.IsError {
				t.Fatalf("session_close: %q", text(res))
			}
			if res := <-answered; res.StructuredContent == nil || !decode(t, res).Cancelled {
				t.Fatalf("the running call answered %q, want it cancelled", text(res))
			}
			waitFor(t, "the sleep to end", func() bool { return len(proctest.With(marker)) == 0 })
		})
	}
}

func TestHTTPSessionTTL(t *testing.T) {
	srv, hs := serveHTTP(t, mcp.Options{SessionTTL: 50 * time.Millisecond}, nil)
	cs := connectHTTP(t, hs.URL, "", "")
	_, r := call(t, cs, "bash", map[string]any{"command": "true"})
	waitFor(t, "the idle session to close", func() bool { return srv.Sessions() == 0 })
	res, _ := call(t, cs, "bash", map[string]any{"command": "true", "session": r.Session})
	if !res.IsError || !strings.Contains(text(res), "unknown session") {
		t.Fatalf("an expired session: %q", text(res))
	}
}

func TestHTTPMaxSessions(t *testing.T) {
	_, hs := serveHTTP(t, mcp.Options{MaxSessions: 2}, nil)
	cs := connectHTTP(t, hs.URL, "", "")
	_, r := call(t, cs, "bash", map[string]any{"command": "true"})
	call(t, cs, "bash", map[string]any{"command": "true"})
	res, r3 := call(t, cs, "bash", map[string]any{"command": "true"})
	if want := "shelter: 2 sessions are open, the limit of --max-sessions 2; close one with session_close, or wait for an idle one to expire\n"; !res.IsError || r3.Stderr != want {
		t.Fatalf("a third session: %q", r3.Stderr)
	}
	call(t, cs, "session_close", map[string]any{"session": r.Session})
	if res, _ := call(t, cs, "bash", map[string]any{"command": "true"}); res.IsError {
		t.Fatalf("after a close: %q", text(res))
	}
}

func TestHTTPToken(t *testing.T) {
	_, hs := serveHTTP(t, mcp.Options{}, []string{"alpha", "beta"})
	resp, err := http.Post(hs.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a token: %s", resp.Status)
	}
	resp, err = http.Get(hs.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %s", resp.Status)
	}

	a := connectHTTP(t, hs.URL, "alpha", "")
	_, r := call(t, a, "bash", map[string]any{"command": "x=1"})
	if res, r2 := call(t, a, "bash", map[string]any{"command": "echo $x", "session": r.Session}); res.IsError || r2.Stdout != "1\n" {
		t.Fatalf("same token: %q", text(res))
	}
	// Another token's client does not reach the session.
	b := connectHTTP(t, hs.URL, "beta", "")
	if res, _ := call(t, b, "bash", map[string]any{"command": "echo $x", "session": r.Session}); !res.IsError || !strings.Contains(text(res), "unknown session") {
		t.Fatalf("another token: %q", text(res))
	}
}

func TestHTTPDrain(t *testing.T) {
	srv, hs := serveHTTP(t, mcp.Options{}, nil)
	cs := connectHTTP(t, hs.URL, "", "")
	_, r := call(t, cs, "bash", map[string]any{"command": "true"})
	srv.Drain()
	resp, err := http.Get(hs.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("healthz while draining: %s", resp.Status)
	}
	if res, _ := call(t, cs, "bash", map[string]any{"command": "true"}); !res.IsError || !strings.Contains(text(res), "shutting down") {
		t.Fatalf("a new session while draining: %q", text(res))
	}
	if res, _ := call(t, cs, "bash", map[string]any{"command": "true", "session": r.Session}); res.IsError {
		t.Fatalf("an existing session while draining: %q", text(res))
	}
}

// TestRevisions runs the same list and call checks for an old client
// (initialize handshake) and a 2026-07-28 one, over stdio (the client on
// the SDK's IOTransport, and on a StreamTransport) and HTTP.
func TestRevisions(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		t.Run("stdio/"+version, func(t *testing.T) {
			_, cs := stdio(t, mcp.Options{}, version)
			checkRevision(t, cs, version, false)
		})
		t.Run("stdio-stream/"+version, func(t *testing.T) {
			_, cs := stdioClient(t, mcp.Options{}, version, true)
			checkRevision(t, cs, version, false)
		})
		t.Run("http/"+version, func(t *testing.T) {
			_, hs := serveHTTP(t, mcp.Options{}, []string{"tok"})
			checkRevision(t, connectHTTP(t, hs.URL, "tok", version), version, true)
		})
	}
}

func checkRevision(t *testing.T, cs *sdk.ClientSession, version string, http bool) {
	t.Helper()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	checkList(t, cs)
	_, r := call(t, cs, "bash", map[string]any{"command": "cd / && n=7"})
	args := map[string]any{"command": "echo $n; pwd"}
	if http {
		args["session"] = r.Session
	}
	res, r := call(t, cs, "bash", args)
	if res.IsError || r.Stdout != "7\n/\n" {
		t.Fatalf("second call: %+v", r)
	}
	if res, _ := call(t, cs, "bash", map[string]any{"command": "exit 3"}); !res.IsError || !strings.Contains(text(res), "exit code: 3") {
		t.Fatalf("exit 3: %q", text(res))
	}
}

func TestHTTPProgress(t *testing.T) {
	_, hs := serveHTTP(t, mcp.Options{Progress: 20 * time.Millisecond}, nil)
	got := make(chan float64, 100)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			select {
			case got <- req.Params.Progress:
			default:
			}
		},
	})
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep 0.3"}}
	params.SetProgressToken("tok")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("no progress notification over HTTP")
	}
}
