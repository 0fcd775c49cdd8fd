package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shelter-sh/shelter/kernel"
)

// postServer is a server and two HTTP front ends of it: fast, the
// fast path before the SDK's handler, as Handler serves it, and sdk, the
// SDK's handler alone; slow counts the tools/call requests the fast path
// passed on to the SDK's.
func postServer(t *testing.T) (srv *Server, fast, sdkOnly *httptest.Server, slow *atomic.Int32) {
	t.Helper()
	cfg, _ := kernel.Preset(kernel.ProfileAgent)
	k, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err = New(Options{Kernel: k, Session: kernel.SessionOptions{Dir: t.TempDir()}, Progress: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	next := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.mcp }, &sdk.StreamableHTTPOptions{
		Stateless: true, PropagateRequestCancellation: true,
	})
	slow = new(atomic.Int32)
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			slow.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
	fast = httptest.NewServer(srv.fastPath(counted, true))
	sdkOnly = httptest.NewServer(next)
	t.Cleanup(func() {
		fast.Close()
		sdkOnly.Close()
		srv.Close()
	})
	return srv, fast, sdkOnly, slow
}

// TestPostFastPath has the SDK's client of each revision make calls
// that go on in one session, with progress notifications, and checks
// that the fast path served every one of them.
func TestPostFastPath(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			_, fast, _, slow := postServer(t)
			progress := make(chan struct{}, 100)
			client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
					select {
					case progress <- struct{}{}:
					default:
					}
				},
			})
			cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: fast.URL, DisableStandaloneSSE: true}, &sdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res := callTool(t, cs, map[string]any{"command": "cd / && n=7"})
			session := res.StructuredContent.(map[string]any)["session"].(string)
			params := &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep 0.2; echo $n; pwd", "session": session}}
			params.SetProgressToken("tok")
			res, err = cs.CallTool(context.Background(), params)
			if err != nil || res.IsError || !strings.HasPrefix(res.Content[0].(*sdk.TextContent).Text, "7\n/\nexit code: 0\n") {
				t.Fatalf("second call: %v %+v", err, res)
			}
			select {
			case <-progress:
			default:
				t.Error("no progress notification")
			}
			if n := slow.Load(); n != 0 {
				t.Errorf("%d tools/call requests went to the SDK's handler, want 0", n)
			}
		})
	}
}

func callTool(t *testing.T, cs *sdk.ClientSession, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%v: %v %+v", args, err, res)
	}
	return res
}

// TestPostAnswersAsSDK sends the same requests to the fast path and to
// the SDK's handler alone: the answers are the same, byte for byte,
// whether the fast path serves the request or passes it on.
func TestPostAnswersAsSDK(t *testing.T) {
	const (
		caps    = `"io.modelcontextprotocol/clientCapabilities":{}`
		newMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` + caps + `}`
		refused = `"name":"bash","arguments":{"command":"true","color":1}`
	)
	newHeaders := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "bash"}
	oldHeaders := map[string]string{"Mcp-Protocol-Version": "2025-06-18"}
	with := func(h map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range h {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		name    string
		headers map[string]string
		body    string
		fast    bool // the fast path serves it
	}{
		{"refusal", newHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + refused + `,` + newMeta + `}}`, true},
		{"refusal/old", oldHeaders, `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{` + refused + `}}`, true},
		{"unknown tool", with(newHeaders, "Mcp-Name", "nope"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope",` + newMeta + `}}`, true},
		{"no capabilities", newHeaders, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{` + refused + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, true},
		{"unknown tool/old", oldHeaders, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`, true},
		{"name header", with(newHeaders, "Mcp-Name", "other"), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + refused + `,` + newMeta + `}}`, false},
		{"method header", with(newHeaders, "Mcp-Method", "tools/list"), `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{` + refused + `,` + newMeta + `}}`, false},
		{"no name header", with(newHeaders, "Mcp-Name", ""), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + refused + `,` + newMeta + `}}`, false},
		{"meta version", with(newHeaders, "Mcp-Protocol-Version", "2025-11-25"), `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{` + refused + `,` + newMeta + `}}`, false},
		{"no meta", newHeaders, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{` + refused + `}}`, false},
		{"accept", with(newHeaders, "Accept", "application/json"), `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{` + refused + `,` + newMeta + `}}`, false},
		{"content type", with(oldHeaders, "Content-Type", "text/plain"), `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{` + refused + `}}`, false},
		{"batch", with(oldHeaders, "Mcp-Protocol-Version", "2025-03-26"), `[{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{` + refused + `}}]`, false},
		{"no id", oldHeaders, `{"jsonrpc":"2.0","method":"tools/call","params":{` + refused + `}}`, false},
		{"not json", oldHeaders, `{"jsonrpc":"2.0",`, false},
		{"unknown version", with(oldHeaders, "Mcp-Protocol-Version", "2024-01-01"), `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{` + refused + `}}`, false},
	}
	_, fast, sdkOnly, slow := postServer(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := slow.Load()
			gotStatus, gotType, got := post(t, fast.URL, c.headers, c.body)
			if served := slow.Load() == before; served != c.fast && strings.Contains(c.body, "tools/call") {
				t.Errorf("served by the fast path: %v, want %v", served, c.fast)
			}
			wantStatus, wantType, want := post(t, sdkOnly.URL, c.headers, c.body)
			// A call without a session starts one, its handle random.
			got, want = handles.ReplaceAllString(got, "HANDLE"), handles.ReplaceAllString(want, "HANDLE")
			if gotStatus != wantStatus || gotType != wantType || got != want {
				t.Errorf("fast path answered %d %s %q\nSDK answered       %d %s %q", gotStatus, gotType, got, wantStatus, wantType, want)
			}
		})
	}
}

var handles = regexp.MustCompile(`\b[0-9a-f]{48}\b`)

// post sends body with headers (and the Accept and Content-Type the
// SDK's client sends, unless headers give them) and returns the answer.
func post(t *testing.T, url string, headers map[string]string, body string) (status int, contentType, answer string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// TestPostClientGone has a 2026-07-28 client go away during a call: the
// call is cancelled, as the SDK's handler cancels it, and the session
// goes on.
func TestPostClientGone(t *testing.T) {
	srv, fast, _, slow := postServer(t)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: fast.URL, DisableStandaloneSSE: true}, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	session := callTool(t, cs, map[string]any{"command": "true"}).StructuredContent.(map[string]any)["session"].(string)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "touch started; sleep 60", "session": session}})
		done <- err
	}()
	started := filepath.Join(srv.opts.Session.Dir, "started")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the call to start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call answered")
	}
	waitCtx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	if err := srv.Wait(waitCtx); err != nil {
		t.Fatal("the call still runs after its client went away")
	}
	res := callTool(t, cs, map[string]any{"command": "echo on", "session": session})
	if !strings.HasPrefix(res.Content[0].(*sdk.TextContent).Text, "on\n") {
		t.Fatalf("after: %+v", res)
	}
	if n := slow.Load(); n != 0 {
		t.Errorf("%d tools/call requests went to the SDK's handler, want 0", n)
	}
}
