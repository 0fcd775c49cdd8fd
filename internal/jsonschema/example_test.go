package jsonschema_test

import (
	"fmt"

	"github.com/shelter-sh/shelter/internal/jsonschema"
)

func ExampleSchema_Validate() {
	s, err := jsonschema.Compile([]byte(`{
		"type": "object",
		"properties": {
			"unit": {"type": "string"},
			"lines": {"type": "integer", "minimum": 1},
			"tags": {"type": "array", "items": {"type": "string"}}
		},
		"required": ["unit"],
		"additionalProperties": false
	}`))
	if err != nil {
		panic(err)
	}
	v, err := jsonschema.Decode([]byte(`{"lines": 0, "tags": ["a", 1], "unti": "x"}`))
	if err != nil {
		panic(err)
	}
	for _, x := range s.Validate(v) {
		fmt.Printf("%q %s: %s\n", x.Pointer(), x.Keyword, x.Message)
	}
	// Output:
	// "" required: missing property 'unit'
	// "" additionalProperties: additional properties 'unti' not allowed
	// "/lines" minimum: minimum: got 0, want 1
	// "/tags/1" type: got number, want string
}

func ExampleCompile() {
	_, err := jsonschema.Compile([]byte(`{"properties": {"id": {"pattern": "^(?!0)"}}}`))
	fmt.Println(err)
	_, err = jsonschema.Compile([]byte(`{"$ref": "https://example.com/other.json"}`))
	fmt.Println(err)
	// Output:
	// at '/properties/id/pattern': pattern: '^(?!0)' is not a Go (RE2) regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?!`
	// at '/$ref': $ref 'https://example.com/other.json' points outside the schema; a schema may only refer inside itself ('#/$defs/…')
}
