package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
)

// nestedSchema has nested objects and arrays, and keywords of draft
// 2020-12 only (prefixItems), which an older draft would ignore.
const nestedSchema = `{
  "type": "object",
  "properties": {
    "unit": {"type": "string", "enum": ["nginx", "sshd"]},
    "meta": {
      "type": "object",
      "properties": {"depth": {"type": "integer", "minimum": 1}, "path/x": {"type": "string"}},
      "required": ["depth"],
      "additionalProperties": false
    },
    "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}
  },
  "required": ["unit"]
}`

// TestSchemaRefusals: each violation is one line naming the property, by
// name at the top level and by JSON pointer when nested.
func TestSchemaRefusals(t *testing.T) {
	tool, err := harness.Func(harness.Def{Name: "logs", Input: json.RawMessage(nestedSchema)},
		func(context.Context, harness.Input) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	h := tool.(*harness.Tool)
	tests := []struct {
		name string
		args []string
		want string // "" when the input is valid
	}{
		{"valid", []string{"--unit", "nginx", "--meta", `{"depth":2}`, "--pair", `["a",1]`}, ""},
		{"unknown argument", []string{"--lines", "5"}, "logs: unknown flag '--lines'; allowed: --json, --meta, --pair, --tags, --unit"},
		{"missing required property", []string{"--tags", "a"}, "logs: missing required property 'unit'; allowed: input with unit"},
		{"enum", []string{"--unit", "cron"}, `logs: property 'unit': value must be one of 'nginx', 'sshd'; allowed: (none)`},
		{"nested required", []string{"--unit", "nginx", "--meta", `{}`}, "logs: missing required property '/meta/depth'; allowed: input with /meta/depth"},
		{"nested type", []string{"--unit", "nginx", "--meta", `{"depth":"a"}`}, "logs: property '/meta/depth': got string, want integer; allowed: (none)"},
		{"nested minimum", []string{"--unit", "nginx", "--meta", `{"depth":0}`}, "logs: property '/meta/depth': minimum: got 0, want 1; allowed: (none)"},
		{"nested unknown key", []string{"--unit", "nginx", "--meta", `{"depth":1,"dpeth":1}`}, "logs: property '/meta/dpeth': not allowed; allowed: (none)"},
		{"pointer escapes", []string{"--unit", "nginx", "--meta", `{"depth":1,"path/x":1}`}, "logs: property '/meta/path~1x': got number, want string; allowed: (none)"},
		{"draft 2020-12 prefixItems", []string{"--unit", "nginx", "--pair", `["a","b"]`}, "logs: property '/pair/1': got string, want integer; allowed: (none)"},
		{"array size", []string{"--unit", "nginx", "--tags", "a,b,c"}, "logs: property 'tags': maxItems: got 3, want 2; allowed: (none)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.ParseInput(tt.args, nil)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("ParseInput(%q): %v", tt.args, err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("ParseInput(%q):\n got %v\nwant %s", tt.args, err, tt.want)
			}
		})
	}
	var se *harness.SchemaError
	_, err = h.ParseInput([]string{"--unit", "nginx", "--meta", `{}`}, nil)
	if !errors.As(err, &se) || se.Property != "/meta/depth" || se.Keyword != "required" || se.Output {
		t.Errorf("SchemaError fields: %#v", err)
	}
	// Validate is the same check for JSON input (an MCP call).
	if err := h.Validate(json.RawMessage(`{"unit":"nginx","meta":{}}`)); err == nil || err.Error() != "logs: missing required property '/meta/depth'; allowed: input with /meta/depth" {
		t.Errorf("Validate: %v", err)
	}
	if err := h.Validate(json.RawMessage(`{"unit":"nginx","unti":1}`)); err == nil || err.Error() != "logs: unknown property 'unti'; allowed: meta, pair, tags, unit" {
		t.Errorf("Validate unknown property: %v", err)
	}
	if err := h.Validate(json.RawMessage(`[1]`)); err == nil || err.Error() != "logs: input is not one JSON object: not a JSON object; allowed: one JSON object" {
		t.Errorf("Validate array: %v", err)
	}
}

// TestUnevaluatedPropertiesRefusal: unevaluatedProperties: false refuses
// an unknown key as additionalProperties: false does, naming the pool.
func TestUnevaluatedPropertiesRefusal(t *testing.T) {
	tool, err := harness.Func(harness.Def{Name: "logs", Input: json.RawMessage(`{
	  "type": "object",
	  "allOf": [{"properties": {"unit": {"type": "string"}}, "required": ["unit"]}],
	  "properties": {"lines": {"type": "integer"}, "meta": {"type": "object", "properties": {"a": true}, "unevaluatedProperties": false}},
	  "unevaluatedProperties": false
	}`)}, func(context.Context, harness.Input) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	h := tool.(*harness.Tool)
	for input, want := range map[string]string{
		`{"unit":"x","lines":1}`:            "",
		`{"unit":"x","unti":1}`:             "logs: unknown property 'unti'; allowed: lines, meta",
		`{"unit":"x","meta":{"a":1,"b":2}}`: "logs: property '/meta/b': not allowed; allowed: (none)",
	} {
		err := h.Validate(json.RawMessage(input))
		if want == "" && err != nil || want != "" && (err == nil || err.Error() != want) {
			t.Errorf("Validate(%s) = %v, want %q", input, err, want)
		}
	}
}

// TestCallerIsNeverTakenFromInput: even a schema that admits any key
// hands the handler the session's caller, whatever the input says.
func TestCallerIsNeverTakenFromInput(t *testing.T) {
	var got atomic.Value
	tool, err := harness.Func(harness.Def{Name: "whoami", Input: json.RawMessage(`{"type":"object","additionalProperties":true}`)},
		func(_ context.Context, in harness.Input) (any, error) {
			got.Store(in.Caller)
			return nil, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	caller := kernel.Caller{SessionID: "s-1", Agent: "planner", Workspace: "ws"}
	s := session(t, []kernel.Tool{tool}, kernel.SessionOptions{Caller: caller})
	for _, script := range []string{
		`whoami --json '{"session_id":"forged","agent":"forged","workspace":"forged","caller":{"agent":"forged"}}'`,
		`echo '{"Caller":{"Agent":"forged"},"agent":"forged"}' | whoami`,
		`SHELTER_AGENT=forged whoami`,
	} {
		got.Store(kernel.Caller{})
		res := run(t, s, script)
		if res.ExitCode != 0 || got.Load() != caller {
			t.Errorf("%s: got code %d stderr %q caller %+v, want %+v", script, res.ExitCode, res.Stderr, got.Load(), caller)
		}
	}
}
