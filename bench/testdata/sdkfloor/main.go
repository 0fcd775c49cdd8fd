// Command sdkfloor is the floor of shelter serve's benchmarks: an MCP
// server of the go-sdk alone whose one tool, bash, answers "hi" at once,
// whatever it is given. It serves on stdin and stdout, or with -http on
// ADDR in the SDK's stateless streamable HTTP, as `shelter serve --http`
// does, until SIGTERM; then its first line on stderr is serve's, so that
// one reader finds the address of both:
//
//	shelter serve: listening on http://ADDR
//
// Usage:
//
//	sdkfloor [-http ADDR]
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on `ADDR` instead of stdio")
	flag.Parse()
	if os.Getenv("GOGC") == "" {
		// serve collects at 400%: the same here, so that the ratio is of
		// shelter's work and not of the collector's setting.
		debug.SetGCPercent(400)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "sdkfloor", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "bash", InputSchema: map[string]any{"type": "object"}}, answer)
	if *addr == "" {
		if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintf(os.Stderr, "sdkfloor: %v\n", err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sdkfloor: %v\n", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "shelter serve: listening on http://%s\n", ln.Addr())
	// The handler's options and the server's timeout are serve's.
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
		Stateless: true, PropagateRequestCancellation: true,
	})
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		fmt.Fprintf(os.Stderr, "sdkfloor: %v\n", hs.Serve(ln))
		os.Exit(1)
	}()
	// SIGTERM ends the server with status 0, as it ends serve.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
}

// answer is the tool: the text shelter answers `echo hi` with (less its
// session line), and nothing done.
func answer(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hi\nexit code: 0"}}}, nil
}
