package harness_test

import (
	"errors"
	"testing"

	"github.com/shelter-sh/shelter/harness"
)

// TestSchemaVocabulary: what YAML lets slip into a schema is refused at
// its key, FILE:LINE:COL.
func TestSchemaVocabulary(t *testing.T) {
	const keywords = "$anchor, $comment, $defs, $dynamicAnchor, $dynamicRef, $id, $ref, $schema, $vocabulary, additionalProperties, allOf, anyOf, const, contains, contentEncoding, contentMediaType, contentSchema, default, dependentRequired, dependentSchemas, deprecated, description, else, enum, examples, exclusiveMaximum, exclusiveMinimum, format, if, items, maxContains, maxItems, maxLength, maxProperties, maximum, minContains, minItems, minLength, minProperties, minimum, multipleOf, not, oneOf, pattern, patternProperties, prefixItems, properties, propertyNames, readOnly, required, then, title, type, unevaluatedItems, unevaluatedProperties, uniqueItems, writeOnly"
	for _, tc := range []struct {
		name, input string
		line, col   int
		msg         string // "" when the schema loads
	}{
		{name: "comma in a flow mapping",
			input: "{type: object, properties: {lines: {type: integer, description: How many lines, newest last.}}}",
			line:  5, col: 87,
			msg: "tool t: input: /properties/lines: key 'newest last.' has no value; in {…} a comma ends a value: quote a value that holds one"},
		{name: "quoted, it loads",
			input: `{type: object, properties: {lines: {type: integer, description: "How many lines, newest last."}}}`},
		{name: "a key of null at the top",
			input: "type: object\n      title:",
			line:  6, col: 7,
			msg: "tool t: input: key 'title' has no value"},
		{name: "unknown keyword in a property",
			input: "{type: object, properties: {unit: {type: string, desciption: The unit.}}}",
			line:  5, col: 56,
			msg: "tool t: input: /properties/unit: 'desciption' is not a JSON Schema 2020-12 keyword; allowed: " + keywords},
		{name: "unknown keyword deep in items",
			input: "{type: object, properties: {tags: {type: array, items: {type: string, size: 3}}}}",
			line:  5, col: 77,
			msg: "tool t: input: /properties/tags/items: 'size' is not a JSON Schema 2020-12 keyword; allowed: " + keywords},
		{name: "unknown keyword in anyOf",
			input: "{type: object, anyOf: [{required: [a]}, {requires: [b]}]}",
			line:  5, col: 48,
			msg: "tool t: input: /anyOf/1: 'requires' is not a JSON Schema 2020-12 keyword; allowed: " + keywords},
		{name: "a property named like no keyword is fine",
			input: "{type: object, properties: {newest: {type: string}, $defs: {type: string}}}"},
		{name: "const and default may be null",
			input: "{type: object, properties: {a: {const: null}, b: {default: null}}}"},
		{name: "another draft: its own keywords pass, nulls do not",
			input: "{$schema: 'http://json-schema.org/draft-07/schema#', type: object, definitions: {a: {type: string}}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "tools:\n  t:\n    run: [/x]\n    input:\n      " + tc.input + "\n"
			path := writeFile(t, t.TempDir(), "t.yaml", src)
			_, err := harness.LoadFile(path)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("LoadFile: %v", err)
				}
				return
			}
			var le *harness.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %v, want a *LoadError", err)
			}
			if le.File != path || le.Line != tc.line || le.Col != tc.col || le.Message != tc.msg {
				t.Errorf("got  %d:%d: %s\nwant %d:%d: %s", le.Line, le.Col, le.Message, tc.line, tc.col, tc.msg)
			}
		})
	}
}
