package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// builtin is a command the kernel itself provides.
type builtin struct {
	name, about string
	usage       string
	run         func(ctx context.Context, c *Call) error
}

func (b *builtin) Name() string        { return b.name }
func (b *builtin) Kind() Kind          { return Builtin }
func (b *builtin) Description() string { return b.about }
func (b *builtin) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"args":{"type":"array","items":{"type":"string"},"description":"the words after the command's name"}},"additionalProperties":false}`)
}
func (b *builtin) Help() string {
	return fmt.Sprintf("usage: %s\n\n%s\n", b.usage, b.about)
}
func (b *builtin) Run(ctx context.Context, c *Call) error {
	if len(c.Args) > 1 && (c.Args[1] == "--help" || c.Args[1] == "-h") && b.name != "env" {
		fmt.Fprint(c.Stdout, b.Help())
		return nil
	}
	return b.run(ctx, c)
}

// Helper is implemented by tools with their own help text, which `help
// NAME` and `NAME --help` print.
type Helper interface {
	Help() string
}

// kernelBuiltins are the commands every session has: the launchers and job
// control that keep every policy in force, and help and tools.
func kernelBuiltins() []Tool {
	return append(launcherBuiltins(),
		&builtin{name: "help", usage: "help [NAME]", about: "List the commands shelter provides, or describe one.", run: runHelp},
		&builtin{name: "tools", usage: "tools [--json]", about: "List every tool of the session with its kind and description; --json prints their schemas.", run: runTools},
	)
}

func sortedTools(tools map[string]Tool) []Tool {
	out := make([]Tool, 0, len(tools))
	for _, n := range sortedNames(tools) {
		out = append(out, tools[n])
	}
	return out
}

func runHelp(_ context.Context, c *Call) error {
	s := c.session
	if len(c.Args) < 2 {
		fmt.Fprintln(c.Stdout, "shelter commands (help NAME for one; bash builtins and programs on PATH work as usual):")
		for _, t := range s.Tools() {
			fmt.Fprintf(c.Stdout, "  %-14s %-8s %s\n", t.Name(), t.Kind(), firstLine(t.Description()))
		}
		return nil
	}
	status := 0
	for _, name := range c.Args[1:] {
		t, ok := s.tools[name]
		if !ok {
			fmt.Fprintf(c.Stderr, "help: no shelter command '%s'; allowed: %s\n", name, Pool(sortedNames(s.tools)))
			status = 2
			continue
		}
		fmt.Fprint(c.Stdout, ToolHelp(t))
	}
	if status != 0 {
		return ExitStatus(status)
	}
	return nil
}

// ToolHelp is the help text of a tool: its own when it implements
// [Helper], else its description and the flags of its input schema.
func ToolHelp(t Tool) string {
	if h, ok := t.(Helper); ok {
		return h.Help()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s\n", t.Name(), t.Kind(), t.Description())
	var schema struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(t.InputSchema(), &schema) == nil && len(schema.Properties) > 0 {
		b.WriteString("\nflags:\n")
		names := make([]string, 0, len(schema.Properties))
		for n := range schema.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := schema.Properties[n]
			req := ""
			for _, r := range schema.Required {
				if r == n {
					req = " (required)"
				}
			}
			fmt.Fprintf(&b, "  --%s %v%s  %s\n", strings.ReplaceAll(n, "_", "-"), p.Type, req, p.Description)
		}
	}
	return b.String()
}

// ToolInfo is a tool as `shelter tools --json` and `tools --json` list it.
type ToolInfo struct {
	Name        string          `json:"name"`
	Kind        Kind            `json:"kind"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Describe lists tools for agents and frontends.
func Describe(tools []Tool) []ToolInfo {
	out := make([]ToolInfo, len(tools))
	for i, t := range tools {
		schema := t.InputSchema()
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		out[i] = ToolInfo{Name: t.Name(), Kind: t.Kind(), Description: t.Description(), InputSchema: schema}
	}
	return out
}

func runTools(_ context.Context, c *Call) error {
	tools := c.session.Tools()
	switch {
	case len(c.Args) == 2 && c.Args[1] == "--json":
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(Describe(tools))
	case len(c.Args) > 1:
		return &Refusal{Line: fmt.Sprintf("tools: unknown argument '%s'; allowed: --json", c.Args[1])}
	}
	for _, t := range tools {
		fmt.Fprintf(c.Stdout, "%-14s %-8s %s\n", t.Name(), t.Kind(), firstLine(t.Description()))
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

var ansiEscape = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)

// stripANSI removes terminal escape sequences from captured text.
func stripANSI(b []byte) string {
	if !strings.ContainsRune(string(b), 0x1b) {
		return string(b)
	}
	return ansiEscape.ReplaceAllString(string(b), "")
}
