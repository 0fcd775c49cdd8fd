package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/mcp"
)

func TestStrict(t *testing.T) {
	for _, tc := range []struct {
		schema string
		strict bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`, true},
		{`{"type":"object","properties":{},"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, false},
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"],"additionalProperties":false}`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":true}`, false},
		{`{"type":"object"}`, false},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}},"required":["o"],"additionalProperties":false}`, false},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":false}},"required":["o"],"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"x":{}}}}},"required":["l"],"additionalProperties":false}`, false},
		{`{"type":"object","properties":{"u":{"anyOf":[{"type":"string"},{"type":"object","properties":{}}]}},"required":["u"],"additionalProperties":false}`, false},
	} {
		if got := mcp.Strict(json.RawMessage(tc.schema)); got != tc.strict {
			t.Errorf("Strict(%s) = %v, want %v", tc.schema, got, tc.strict)
		}
	}
}

func TestRenderOpenAIStrict(t *testing.T) {
	tools := testTools(t)
	defs, err := mcp.Defs(tools, mcp.DefOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := mcp.Render(defs, mcp.FormatOpenAI)
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
			Strict     bool            `json:"strict"`
		} `json:"function"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	strict := map[string]bool{}
	for _, f := range list {
		strict[f.Function.Name] = f.Function.Strict
	}
	// add is closed with both properties required; bash's optional stdin
	// and the verbs' optional flags are not strict.
	want := map[string]bool{"add": true, "bash": false, "greet": false, "greet_say": false}
	for name, s := range want {
		if strict[name] != s {
			t.Errorf("%s: strict %v, want %v", name, strict[name], s)
		}
	}
	if _, err := mcp.Render(defs, "gemini"); err == nil || !strings.Contains(err.Error(), "allowed: anthropic, mcp, openai") {
		t.Errorf("an unknown format: %v", err)
	}
}

func TestWireName(t *testing.T) {
	for in, want := range map[string]string{"git log": "git_log", "a.b": "a_b", "ok-1_x": "ok-1_x", strings.Repeat("x", 70): strings.Repeat("x", 64)} {
		if got := mcp.WireName(in); got != want {
			t.Errorf("WireName(%q) = %q, want %q", in, got, want)
		}
	}
}
