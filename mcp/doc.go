// Package mcp is shelter's MCP server (on github.com/modelcontextprotocol/go-sdk):
// any MCP client gets a persistent, hermetic shell and every declared tool.
//
// [Defs] lists what a client sees: the bash tool, one tool per harness
// tool, one per verb of each wrapped command, and session_close, sorted
// by wire name ([WireName]). [Render] writes the list for MCP (as a
// Server lists it), OpenAI or Anthropic, as `shelter tools --format`
// prints it.
//
// A [Server] runs each call in a shell session of its own: sessions are
// explicit handles, passed as the session argument of every tool, so
// stdio ([Server.Run]) and stateless streamable HTTP ([Server.Handler])
// work alike. A handle names the server process that made it, so one
// that reaches another process is refused as such. Each result carries
// the kernel's Result and the handle as structured content, and one text
// block; a call that yields has no exit code in either (its text says
// which job to wait for), and a refusal names no handle that is closed. [Server.Drain] and [Server.Wait] let a server stop without
// dropping a call. [StreamTransport] is the stdio transport serve runs
// on: the SDK's newline-delimited JSON-RPC, for either end, with one
// reused read buffer and no JSON decoder per message, which answers
// every request read before the end of input. The contract for users is
// docs/mcp.md in the repository.
package mcp
