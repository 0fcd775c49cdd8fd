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

// The same tools rendered for Anthropic's API.
func ExampleRender() {
	defs, _ := mcp.Defs(nil, mcp.DefOptions{Expose: []mcp.Family{mcp.FamilyBash}})
	out, _ := mcp.Render(defs, mcp.FormatAnthropic)
	fmt.Println(len(out) > 0, defs[0].Name)
	// Output:
	// true bash
}
