package jsonschema

import (
	"bytes"
	"testing"

	oracle "github.com/santhosh-tekuri/jsonschema/v6"
)

// benchSchema is a tool's input schema of the usual shape: typed
// properties, an enum, a nested object, arrays, a reference.
const benchSchema = `{
  "type": "object",
  "properties": {
    "unit": {"type": "string", "enum": ["nginx", "sshd"]},
    "lines": {"type": "integer", "minimum": 1, "maximum": 10000},
    "meta": {"type": "object", "properties": {"depth": {"type": "integer"}}, "required": ["depth"], "additionalProperties": false},
    "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}, "maxItems": 8, "uniqueItems": true}
  },
  "required": ["unit"],
  "additionalProperties": false,
  "$defs": {"tag": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 32}}
}`

const benchInstance = `{"unit":"nginx","lines":50,"meta":{"depth":3},"tags":["a","bc","def"]}`

func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		if _, err := Compile([]byte(benchSchema)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate is decoding and validating one valid input.
func BenchmarkValidate(b *testing.B) {
	s, err := Compile([]byte(benchSchema))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		v, err := Decode([]byte(benchInstance))
		if err != nil {
			b.Fatal(err)
		}
		if got := s.Validate(v); got != nil {
			b.Fatal(got)
		}
	}
}

// BenchmarkOracleCompile and BenchmarkOracleValidate are the same work
// done by santhosh-tekuri/jsonschema, for comparison.
func BenchmarkOracleCompile(b *testing.B) {
	for b.Loop() {
		if _, err := compileOracle([]byte(benchSchema)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOracleValidate(b *testing.B) {
	s, err := compileOracle([]byte(benchSchema))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		v, err := oracle.UnmarshalJSON(bytes.NewReader([]byte(benchInstance)))
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}
