package mcp_test

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/mcp"
)

// A server over the SDK's in-memory transports: the client's two calls
// run in the one default session, as over stdio.
func ExampleServer() {
	cfg, _ := kernel.Preset(kernel.ProfileAgent)
	k, _ := kernel.New(cfg)
	srv, _ := mcp.New(mcp.Options{Kernel: k, Default: true, Session: kernel.SessionOptions{Dir: os.TempDir()}})
	defer srv.Close()

	ctx := context.Background()
	clientT, serverT := sdk.NewInMemoryTransports()
	ss, _ := srv.MCP().Connect(ctx, serverT, nil)
	defer ss.Close()
	cs, _ := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, clientT, nil)
	defer cs.Close()

	cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "cd / && greeting=hello"}})
	res, _ := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo $greeting from $PWD; exit 3"}})
	fmt.Println(res.IsError)
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// true
	// hello from /
	// exit code: 3
}

// A server and a client at the two ends of a pair of pipes, each on a
// StreamTransport, as a host that starts `shelter serve` sees it.
func ExampleStreamTransport() {
	cfg, _ := kernel.Preset(kernel.ProfileAgent)
	k, _ := kernel.New(cfg)
	srv, _ := mcp.New(mcp.Options{Kernel: k, Default: true, Session: kernel.SessionOptions{Dir: os.TempDir()}})
	defer srv.Close()

	toServer, fromClient, _ := os.Pipe()
	fromServer, toClient, _ := os.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Run(ctx, &mcp.StreamTransport{Reader: toServer, Writer: toClient})

	client := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil)
	cs, _ := client.Connect(ctx, &mcp.StreamTransport{Reader: fromServer, Writer: fromClient}, nil)
	defer cs.Close()
	res, _ := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo hi"}})
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// hi
	// exit code: 0
}

// The same tools rendered for Anthropic's API.
func ExampleRender() {
	defs, _ := mcp.Defs(nil, mcp.DefOptions{Expose: []mcp.Family{mcp.FamilyBash}})
	out, _ := mcp.Render(defs, mcp.FormatAnthropic)
	fmt.Println(len(out) > 0, defs[0].Name)
	// Output:
	// true bash
}
