package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/mcp"
)

// BenchmarkRunEcho is the kernel's own call, for the overhead of the
// server's benchmarks beside it: same kernel, same script.
func BenchmarkRunEcho(b *testing.B) {
	k := newKernel(b)
	s, err := k.NewSession(kernel.SessionOptions{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.Run(ctx, "echo hi", kernel.RunOptions{})
		if err != nil || res.Stdout != "hi\n" {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkServeStdioEcho is a bash call of `echo hi` through the SDK's
// client over stdio pipes, with serve's default yield. The server is on
// shelter's StreamTransport, as serve runs it; the client on the SDK's
// IOTransport, as any Go client of the SDK.
func BenchmarkServeStdioEcho(b *testing.B) {
	_, cs := stdio(b, mcp.Options{Yield: 45 * time.Second}, "")
	benchEcho(b, cs, map[string]any{"command": "echo hi"})
}

// BenchmarkServeStdioEchoFast is BenchmarkServeStdioEcho with the
// client on a StreamTransport too: the server's own cost, with a client
// that costs little.
func BenchmarkServeStdioEchoFast(b *testing.B) {
	_, cs := stdioClient(b, mcp.Options{Yield: 45 * time.Second}, "", true)
	benchEcho(b, cs, map[string]any{"command": "echo hi"})
}

// BenchmarkServeHTTPEcho is the same call over loopback HTTP, in one
// session.
func BenchmarkServeHTTPEcho(b *testing.B) {
	_, hs := serveHTTP(b, mcp.Options{Yield: 45 * time.Second}, nil)
	cs := connectHTTP(b, hs.URL, "", "")
	_, r := call(b, cs, "bash", map[string]any{"command": "true"})
	benchEcho(b, cs, map[string]any{"command": "echo hi", "session": r.Session})
}

func benchEcho(b *testing.B, cs *sdk.ClientSession, args map[string]any) {
	ctx := context.Background()
	params := &sdk.CallToolParams{Name: "bash", Arguments: args}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError || text(res) == "" {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkIdleSession reports the heap an idle MCP session holds: the
// server's entry and the kernel session after one call.
func BenchmarkIdleSession(b *testing.B) {
	srv, hs := serveHTTP(b, mcp.Options{}, nil)
	cs := connectHTTP(b, hs.URL, "", "")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		call(b, cs, "bash", map[string]any{"command": "true"})
		n++
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if srv.Sessions() != n {
		b.Fatalf("%d sessions, want %d", srv.Sessions(), n)
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "B/session")
}

// BenchmarkSDKStdioFloor is a tool that answers at once, on the SDK's
// own IOTransport at both ends over the same pipes: what the SDK costs a
// call, shelter aside.
func BenchmarkSDKStdioFloor(b *testing.B) {
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	fromServer, toClient, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	benchFloor(b, &sdk.IOTransport{Reader: fromServer, Writer: fromClient}, &sdk.IOTransport{Reader: toServer, Writer: toClient})
}

// BenchmarkStreamStdioFloor is BenchmarkSDKStdioFloor with the server on
// shelter's StreamTransport: the floor under BenchmarkServeStdioEcho.
func BenchmarkStreamStdioFloor(b *testing.B) {
	ct, st := pipes(b, false)
	benchFloor(b, ct, st)
}

// BenchmarkStreamStdioFloorFast is the floor with a StreamTransport at
// both ends: the SDK's dispatch alone, client and server.
func BenchmarkStreamStdioFloorFast(b *testing.B) {
	ct, st := pipes(b, true)
	benchFloor(b, ct, st)
}

func benchFloor(b *testing.B, ct, st sdk.Transport) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "floor", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "bash", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hi\nexit code: 0"}}}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Run(ctx, st)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	benchEcho(b, cs, map[string]any{"command": "echo hi"})
}

// BenchmarkSDKHTTPFloor is BenchmarkSDKStdioFloor over loopback HTTP in
// the SDK's stateless mode, as the server runs it.
func BenchmarkSDKHTTPFloor(b *testing.B) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "floor", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "bash", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hi\nexit code: 0"}}}, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{Stateless: true}))
	defer hs.Close()
	benchEcho(b, connectHTTP(b, hs.URL, "", ""), map[string]any{"command": "echo hi"})
}
