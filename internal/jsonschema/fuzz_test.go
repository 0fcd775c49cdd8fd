package jsonschema

import "testing"

// fuzzInstances are the values FuzzCompile validates against a schema
// that compiles.
var fuzzInstances = []any{nil, true, "é", map[string]any{"a": []any{"1"}}, []any{map[string]any{}, nil}}

// FuzzCompile: no document makes Compile, or validation against what it
// compiled, panic or hang.
func FuzzCompile(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"items":{"$ref":"#"}}}}`))
	f.Add([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"const":1}],"additionalItems":false}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		s, err := Compile(doc)
		if err != nil {
			if s != nil {
				t.Fatal("a schema beside an error")
			}
			return
		}
		for _, v := range fuzzInstances {
			if s.Valid(v) != (len(s.Validate(v)) == 0) {
				t.Fatalf("Valid and Validate disagree on %v", v)
			}
		}
	})
}

// FuzzValidate: no schema and value make validation panic or hang, and
// Valid agrees with Validate.
func FuzzValidate(f *testing.F) {
	f.Add(`{"anyOf":[{"type":"integer","minimum":1},{"pattern":"^a"}]}`, `[1,"a",{"b":1.5e3}]`)
	f.Add(`{"items":{"$ref":"#"},"uniqueItems":true}`, `[[[]],[[]]]`)
	f.Fuzz(func(t *testing.T, schema, instance string) {
		s, err := Compile([]byte(schema))
		if err != nil {
			return
		}
		v, err := Decode([]byte(instance))
		if err != nil {
			return
		}
		got := s.Validate(v)
		if s.Valid(v) != (len(got) == 0) {
			t.Fatalf("Valid and Validate disagree: %+v", got)
		}
		for _, x := range got {
			if x.Keyword == "" || x.Message == "" {
				t.Fatalf("violation without keyword or message: %+v", x)
			}
		}
	})
}
