// Package harness builds harness tools: commands described by a JSON
// Schema (draft 2020-12) that a shelter session calls like any other
// command, and that MCP clients call with JSON.
//
// A tool is either a Go function an embedder registers ([Func]) or an
// executable declared under `tools:` in a YAML file ([DecodeYAML],
// [LoadFile]) that reads its input as one JSON object on stdin. Both are
// a [*Tool]: a [kernel.Tool] of kind [kernel.Harness] that also
// implements [kernel.Replacer], [kernel.Helper] and
// [kernel.StaticChecker]. Where the session confines its programs (the
// sandbox profile), an executable's declaration may ask for more than
// the session gives every program: the network and further paths to
// read or write ([Def].Network, ReadPaths, WritePaths).
//
// From the shell, flags map onto the schema's properties ([Flags]):
// `logs --unit nginx --lines 50 --follow --tags a,b`, or the whole input
// with `--json '{…}'` or as JSON on stdin. The input is validated against
// the schema before the tool runs; an argument the schema does not name is
// refused, never dropped. Every refusal is one line and exit status 2.
//
// A tool's `replaces` list feeds the kernel's guard, which refuses the
// shell commands the tool is the preferred way to do and names the tool
// instead. The guard is a filter for a cooperative agent, not a sandbox.
package harness
