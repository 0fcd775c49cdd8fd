// Command deps links the third-party packages the CLI's own packages
// import, and does nothing: the floor of the CLI's cold start, what
// their package initialisation and a binary of their size cost before
// shelter does anything. It takes any arguments and exits 0.
//
// TestDepsProgramLinksTheCLIsDependencies keeps the list equal to what
// the packages of cmd/shelter import.
package main

import (
	_ "github.com/creack/pty"
	_ "github.com/itchyny/gojq"
	_ "github.com/modelcontextprotocol/go-sdk/auth"
	_ "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/reeflective/readline"
	_ "github.com/reeflective/readline/inputrc"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "gopkg.in/yaml.v3"
	_ "mvdan.cc/sh/v3/expand"
	_ "mvdan.cc/sh/v3/interp"
	_ "mvdan.cc/sh/v3/pattern"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {}
