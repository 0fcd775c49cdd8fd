package harness

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/shelter-sh/shelter/internal/jsonschema"
)

// compileSchema compiles one schema document, draft 2020-12 unless its
// $schema says otherwise; references resolve inside the document only.
// The error is one line.
func compileSchema(which string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%s schema is not JSON: %v", which, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("%s schema must be a JSON object", which)
	}
	sch, err := jsonschema.CompileValue(doc)
	if err != nil {
		return nil, fmt.Errorf("%s schema: %v", which, err)
	}
	return sch, nil
}

// validate checks a JSON value against a compiled schema; a violation is a
// [*SchemaError] naming one property. properties are the schema's own, for
// the refusal of an unknown one.
func validate(tool string, output bool, sch *jsonschema.Schema, value json.RawMessage, properties []string) error {
	v, err := jsonschema.Decode(value)
	if err != nil {
		if output {
			return fmt.Errorf("output is not JSON: %v", err)
		}
		return &UsageError{Tool: tool, Message: "input is not JSON: " + err.Error(), Allowed: []string{"one JSON object"}}
	}
	found := sch.Validate(v)
	if len(found) == 0 {
		return nil
	}
	errs := make([]*SchemaError, len(found))
	for i, f := range found {
		errs[i] = violation(f)
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Property != errs[j].Property {
			return errs[i].Property < errs[j].Property
		}
		return errs[i].Message < errs[j].Message
	})
	first := errs[0]
	first.Tool, first.Output = tool, output
	if (first.Keyword == "additionalProperties" || first.Keyword == "unevaluatedProperties") && !output && !strings.HasPrefix(first.Property, "/") {
		return &UnknownPropertyError{Tool: tool, Property: first.Property, Allowed: properties}
	}
	return first
}

// violation is one violation as a refusal: a missing or unknown property
// is named itself, not the object that lacks or holds it.
func violation(v jsonschema.Violation) *SchemaError {
	loc := v.Location
	switch v.Keyword {
	case "required":
		return &SchemaError{Property: pointer(append(loc[:len(loc):len(loc)], v.Names[0])), Keyword: "required", Message: "missing"}
	case "additionalProperties", "unevaluatedProperties":
		return &SchemaError{Property: pointer(append(loc[:len(loc):len(loc)], v.Names[0])), Keyword: v.Keyword, Message: "not allowed"}
	}
	return &SchemaError{Property: pointer(loc), Keyword: v.Keyword, Message: v.Message}
}

// pointer names a location: a top-level property by its name, anything
// deeper by its JSON pointer, the value itself by "".
func pointer(tokens []string) string {
	switch len(tokens) {
	case 0:
		return ""
	case 1:
		return tokens[0]
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
