package harness

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// property is one top-level property of an input schema as the shell sees
// it.
type property struct {
	name        string
	flag        string   // "--max-lines"; "" when no flag can name it
	types       []string // the JSON types it takes; nil means any
	items       []string // an array's item types; nil means any
	array       bool     // takes several values: by repetition or commas
	jsonItems   bool     // array items are objects or arrays, given as JSON
	switchFlag  bool     // a boolean: the flag alone means true
	description string
	required    bool
	enum        []string // the allowed values, as JSON, for help
}

// read fills p from its schema; root resolves local references.
func (p *property) read(root, schema map[string]any) {
	schema = deref(root, schema)
	p.description, _ = schema["description"].(string)
	p.types = schemaTypes(schema)
	for _, v := range enumValues(schema) {
		p.enum = append(p.enum, compactJSON(v))
	}
	if len(p.types) == 1 && p.types[0] == "boolean" || sameSet(p.types, "boolean", "null") {
		p.switchFlag = true
	}
	if len(p.types) == 1 && p.types[0] == "array" || sameSet(p.types, "array", "null") {
		p.array = true
		items, _ := schema["items"].(map[string]any)
		items = deref(root, items)
		p.items = schemaTypes(items)
		p.jsonItems = len(p.items) > 0
		for _, t := range p.items {
			if t != "object" && t != "array" {
				p.jsonItems = false
			}
		}
	}
}

// deref follows local references ("#/$defs/x") a few levels deep.
func deref(root, schema map[string]any) map[string]any {
	for range 8 {
		ref, ok := schema["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return schema
		}
		var target any = root
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			m, ok := target.(map[string]any)
			if !ok {
				return schema
			}
			target = m[tok]
		}
		next, ok := target.(map[string]any)
		if !ok {
			return schema
		}
		schema = next
	}
	return schema
}

// schemaTypes is the set of JSON types a schema takes; nil means any.
func schemaTypes(schema map[string]any) []string {
	switch t := schema["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	// An enum or const without a type: the types of its values.
	values := enumValues(schema)
	if len(values) == 0 {
		return nil
	}
	var out []string
	for _, v := range values {
		t := jsonType(v)
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func enumValues(schema map[string]any) []any {
	if c, ok := schema["const"]; ok {
		return []any{c}
	}
	list, _ := schema["enum"].([]any)
	return list
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if isInteger(v.String()) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func sameSet(types []string, want ...string) bool {
	if len(types) != len(want) {
		return false
	}
	for _, w := range want {
		if !slices.Contains(types, w) {
			return false
		}
	}
	return true
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
