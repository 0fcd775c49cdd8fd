package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/shelter-sh/shelter/internal/refusal"
)

// Format is an API whose tool definitions [Render] writes.
type Format string

const (
	FormatMCP       Format = "mcp"       // MCP Tool objects, as tools/list answers
	FormatOpenAI    Format = "openai"    // OpenAI function tools
	FormatAnthropic Format = "anthropic" // Anthropic tools
)

// Formats lists the formats, in the order the docs name them.
func Formats() []Format { return []Format{FormatMCP, FormatOpenAI, FormatAnthropic} }

// sessionProperty is what the server adds to every tool's input.
const sessionProperty = `{"type":"string","description":"the shell session to run in: the handle a result gave; without it, the default session (stdio) or a new one (HTTP)"}`

// MCPTool is d as an MCP tool; withSession adds the session property to
// its input schema, as the server lists it.
func MCPTool(d Def, withSession bool) *sdk.Tool {
	schema := d.InputSchema
	if withSession {
		schema = addSession(schema)
	}
	t := &sdk.Tool{
		Name:        d.Name,
		Title:       d.Title,
		Description: d.Description,
		InputSchema: schema,
		Annotations: &sdk.ToolAnnotations{
			ReadOnlyHint:    d.Annotations.ReadOnly,
			DestructiveHint: &d.Annotations.Destructive,
			IdempotentHint:  d.Annotations.Idempotent,
			OpenWorldHint:   &d.Annotations.OpenWorld,
		},
	}
	if len(d.OutputSchema) > 0 {
		t.OutputSchema = d.OutputSchema
	}
	return t
}

// addSession adds an optional session property to an object schema.
func addSession(schema json.RawMessage) json.RawMessage {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return schema
	}
	props := map[string]json.RawMessage{}
	if raw, ok := top["properties"]; ok && json.Unmarshal(raw, &props) != nil {
		return schema
	}
	props["session"] = json.RawMessage(sessionProperty)
	top["properties"], _ = json.Marshal(props)
	out, err := json.Marshal(top)
	if err != nil {
		return schema
	}
	return out
}

// Render writes defs for an API as one indented JSON array. For MCP it
// is what a [Server] of defs lists in tools/list: every tool with the
// session property, session_close among them. For OpenAI and Anthropic,
// whose callers hold no session of a server, it is every tool but
// session_close with its declared schema, and bash's description says
// nothing of a session argument. Names follow [WireName];
// schemas are never rewritten otherwise. OpenAI's strict is true only
// for a schema whose every object is closed and requires all its
// properties ([Strict]).
func Render(defs []Def, f Format) ([]byte, error) {
	var out []any
	for _, d := range defs {
		if d.closer && f != FormatMCP {
			continue
		}
		if d.apiDescription != "" && f != FormatMCP {
			d.Description = d.apiDescription
		}
		switch f {
		case FormatMCP:
			out = append(out, MCPTool(d, true))
		case FormatOpenAI:
			out = append(out, openAITool{Type: "function", Function: openAIFunction{
				Name: d.Name, Description: d.Description, Parameters: d.InputSchema, Strict: Strict(d.InputSchema),
			}})
		case FormatAnthropic:
			out = append(out, anthropicTool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema})
		default:
			var names []string
			for _, n := range Formats() {
				names = append(names, string(n))
			}
			return nil, errors.New(refusal.Line("shelter tools", "unknown format "+refusal.Quote(string(f)), names))
		}
	}
	if out == nil {
		out = []any{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type openAITool struct {
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Strict reports whether every object in schema is closed
// (additionalProperties: false) and lists every property as required:
// the schemas OpenAI's strict mode takes as they are.
func Strict(schema json.RawMessage) bool {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return false
	}
	return strictNode(v)
}

func strictNode(v any) bool {
	node, ok := v.(map[string]any)
	if !ok {
		return true // true and false schemas, malformed parts: nothing to close
	}
	props, _ := node["properties"].(map[string]any)
	if isObject(node) {
		if open, ok := node["additionalProperties"].(bool); !ok || open {
			return false
		}
		req, _ := node["required"].([]any)
		for name := range props {
			if !slices.Contains(req, any(name)) {
				return false
			}
		}
	}
	for _, p := range props {
		if !strictNode(p) {
			return false
		}
	}
	for _, key := range []string{"items", "not", "additionalProperties"} {
		if !strictNode(node[key]) {
			return false
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		list, _ := node[key].([]any)
		for _, sub := range list {
			if !strictNode(sub) {
				return false
			}
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		defs, _ := node[key].(map[string]any)
		for _, sub := range defs {
			if !strictNode(sub) {
				return false
			}
		}
	}
	return true
}

// isObject reports whether a schema node describes an object.
func isObject(node map[string]any) bool {
	if _, ok := node["properties"]; ok {
		return true
	}
	switch t := node["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}
