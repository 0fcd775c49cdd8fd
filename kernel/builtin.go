package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
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
		&builtin{name: "help", usage: "help [-s|-d] [NAME...]", about: "List the commands shelter provides, or describe one of them or a bash builtin.", run: runHelp},
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

// runHelp is `help [-s|-d] [NAME...]`: shelter's commands, or one of them,
// or, as bash's help does, a bash builtin's synopsis. An unknown NAME is
// status 1, as in bash.
func runHelp(_ context.Context, c *Call) error {
	s := c.session
	args := c.Args[1:]
	mode := ""
	if len(args) > 0 && (args[0] == "-s" || args[0] == "-d") {
		mode, args = args[0], args[1:]
	}
	if len(args) == 0 && mode == "" {
		fmt.Fprintln(c.Stdout, "shelter commands (help NAME for one; bash builtins and programs on PATH work as usual):")
		for _, line := range strings.SplitAfter(FormatTools(Describe(s.Tools())), "\n") {
			if line != "" && line != "\n" {
				line = "  " + line
			}
			io.WriteString(c.Stdout, line)
		}
		return nil
	}
	status := 0
	for _, name := range args {
		if t, ok := s.tools[name]; ok {
			switch mode {
			case "-s":
				fmt.Fprintf(c.Stdout, "%s: %s\n", name, toolSynopsis(t))
			case "-d":
				fmt.Fprintf(c.Stdout, "%s - %s\n", name, firstLine(t.Description()))
			default:
				fmt.Fprint(c.Stdout, ToolHelp(t))
			}
			continue
		}
		if h, ok := bashHelp[name]; ok {
			switch mode {
			case "-s":
				fmt.Fprintln(c.Stdout, h.synopsis)
			case "-d":
				fmt.Fprintf(c.Stdout, "%s - %s\n", name, h.about)
			default:
				fmt.Fprintf(c.Stdout, "%s\n    %s\n", h.synopsis, h.about)
			}
			continue
		}
		fmt.Fprintln(c.Stderr, (&UnknownTopicError{Topic: name, Commands: sortedNames(s.tools)}).Error())
		status = 1
	}
	if status != 0 {
		return ExitStatus(status)
	}
	return nil
}

// UnknownTopicError is `help NAME` for a NAME that is neither a command of
// the session nor a bash builtin.
type UnknownTopicError struct {
	Topic    string
	Commands []string // the session's commands
}

// Error is the line: "help: no help topic 'ZZZ'; allowed: a shelter
// command (env, help, …) or a bash builtin (cd, read, …)".
func (e *UnknownTopicError) Error() string {
	builtins := make([]string, 0, len(bashHelp))
	for n := range bashHelp {
		if !slices.Contains(e.Commands, n) {
			builtins = append(builtins, n)
		}
	}
	return fmt.Sprintf("help: no help topic '%s'; allowed: a shelter command (%s) or a bash builtin (%s)", e.Topic, Pool(e.Commands), Pool(builtins))
}

// toolSynopsis is the usage line of a tool, for `help -s`.
func toolSynopsis(t Tool) string {
	if b, ok := t.(*builtin); ok {
		return b.usage
	}
	return t.Name() + " [--flag VALUE ...]"
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

// Annotations are hints about a tool's behaviour for clients (MCP tool
// annotations); shelter enforces none of them.
type Annotations struct {
	ReadOnly    bool `json:"read_only"`   // the tool changes nothing
	Destructive bool `json:"destructive"` // it may delete or overwrite
	Idempotent  bool `json:"idempotent"`  // calling it twice does no more than once
	OpenWorld   bool `json:"open_world"`  // it reaches outside the session (network, other systems)
}

// An Annotated tool has behaviour hints for clients; [Describe] lists them.
type Annotated interface {
	Annotations() Annotations
}

// An OutputSchemer is a tool whose JSON result ([Call.SetData]) is
// described by a JSON Schema; [Describe] lists it.
type OutputSchemer interface {
	OutputSchema() json.RawMessage
}

// ToolInfo is a tool as `shelter tools --json` and `tools --json` list it.
type ToolInfo struct {
	Name        string          `json:"name"`
	Kind        Kind            `json:"kind"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is the schema of the tool's JSON result, when it
	// declares one ([OutputSchemer]).
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Annotations are the tool's hints, when it has any ([Annotated]).
	Annotations *Annotations `json:"annotations,omitempty"`
}

// Describe lists tools for agents and frontends: the declared ones
// (wrapped and harness) first, then the builtins, each group in the order
// given. A tool with no input schema is listed with {"type":"object"}.
func Describe(tools []Tool) []ToolInfo {
	out := make([]ToolInfo, 0, len(tools))
	for _, builtins := range []bool{false, true} {
		for _, t := range tools {
			if (t.Kind() == Builtin) != builtins {
				continue
			}
			schema := t.InputSchema()
			if len(schema) == 0 {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			info := ToolInfo{Name: t.Name(), Kind: t.Kind(), Description: t.Description(), InputSchema: schema}
			if o, ok := t.(OutputSchemer); ok && len(o.OutputSchema()) > 0 {
				info.OutputSchema = o.OutputSchema()
			}
			if a, ok := t.(Annotated); ok && a.Annotations() != (Annotations{}) {
				ann := a.Annotations()
				info.Annotations = &ann
			}
			out = append(out, info)
		}
	}
	return out
}

// FormatTools renders a [Describe] listing for people, one tool a line
// (name, kind, the first line of its description), a blank line between
// the declared tools and the builtins.
func FormatTools(infos []ToolInfo) string {
	var b strings.Builder
	for i, t := range infos {
		if i > 0 && t.Kind == Builtin && infos[i-1].Kind != Builtin {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%-14s %-8s %s\n", t.Name, t.Kind, firstLine(t.Description))
	}
	return b.String()
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
	io.WriteString(c.Stdout, FormatTools(Describe(tools)))
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
func stripANSI(s string) string {
	if !strings.ContainsRune(s, 0x1b) {
		return s
	}
	return ansiEscape.ReplaceAllString(s, "")
}
