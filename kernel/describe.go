package kernel

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Helper is implemented by tools with their own help text, which `help
// NAME` and `NAME --help` print.
type Helper interface {
	Help() string
}

func sortedTools(tools map[string]Tool) []Tool {
	out := make([]Tool, 0, len(tools))
	for _, n := range sortedNames(tools) {
		out = append(out, tools[n])
	}
	return out
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

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

var ansiEscape = lazyRegexp(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)

// stripANSI removes terminal escape sequences from captured text.
func stripANSI(s string) string {
	if !strings.ContainsRune(s, 0x1b) {
		return s
	}
	return ansiEscape().ReplaceAllString(s, "")
}
