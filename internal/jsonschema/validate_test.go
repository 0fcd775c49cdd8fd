package jsonschema

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// violations renders what Validate found as "POINTER KEYWORD" lines,
// sorted.
func violations(t *testing.T, schema, instance string) []string {
	t.Helper()
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	v, err := Decode([]byte(instance))
	if err != nil {
		t.Fatalf("Decode(%s): %v", instance, err)
	}
	var out []string
	for _, x := range s.Validate(v) {
		out = append(out, x.Pointer()+" "+x.Keyword)
	}
	slices.Sort(out)
	if valid := s.Valid(v); valid != (len(out) == 0) {
		t.Errorf("%s on %s: Valid = %v beside %q", schema, instance, valid, out)
	}
	return out
}

// strictTree extends a tree schema through $dynamicRef so that no node
// takes an unknown property (the spec's own example).
const strictTree = `{"$id":"https://test.example/strict-tree","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false,
 "$defs":{"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`

// strictTree2019 is strictTree in 2019-09's $recursiveRef.
const strictTree2019 = `{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"https://test.example/strict-tree","$recursiveAnchor":true,"$ref":"tree","unevaluatedProperties":false,
 "$defs":{"tree":{"$id":"tree","$recursiveAnchor":true,"type":"object","properties":{"data":true,"children":{"type":"array","items":{"$recursiveRef":"#"}}}}}}`

const d07 = `"$schema": "http://json-schema.org/draft-07/schema#", `

// TestValidate is a table of schemas, instances and the violations they
// give ("" when valid).
func TestValidate(t *testing.T) {
	tests := []struct {
		schema, instance string
		want             string // "POINTER KEYWORD" lines joined by "; "
	}{
		// type
		{`{"type":"integer"}`, `1`, ""},
		{`{"type":"integer"}`, `1.0`, ""},
		{`{"type":"integer"}`, `1e2`, ""},
		{`{"type":"integer"}`, `1.5`, " type"},
		{`{"type":"integer"}`, `"1"`, " type"},
		{`{"type":"number"}`, `-0.5e-3`, ""},
		{`{"type":["string","null"]}`, `null`, ""},
		{`{"type":["string","null"]}`, `true`, " type"},
		{`{"type":"object"}`, `[]`, " type"},
		{`{"type":"array"}`, `{}`, " type"},
		{`{"type":"boolean"}`, `0`, " type"},
		{`{"type":"integer"}`, `123456789012345678901234567890`, ""},
		{`{"type":"integer"}`, `1.000000000000000000000000001`, " type"},
		// enum, const
		{`{"enum":[1,"a",null]}`, `1.0`, ""},
		{`{"enum":[1,"a",null]}`, `"b"`, " enum"},
		{`{"enum":[{"a":[1,2]}]}`, `{"a":[1.0,2]}`, ""},
		{`{"enum":[{"a":[1,2]}]}`, `{"a":[2,1]}`, " enum"},
		{`{"const":{"a":1,"b":2}}`, `{"b":2,"a":1}`, ""},
		{`{"const":false}`, `0`, " const"},
		{`{"const":null}`, `null`, ""},
		// numbers
		{`{"multipleOf":0.1}`, `0.3`, ""},
		{`{"multipleOf":0.1}`, `0.35`, " multipleOf"},
		{`{"multipleOf":3}`, `9`, ""},
		{`{"multipleOf":3}`, `10`, " multipleOf"},
		{`{"maximum":3}`, `3`, ""},
		{`{"maximum":3}`, `3.0001`, " maximum"},
		{`{"exclusiveMaximum":3}`, `3`, " exclusiveMaximum"},
		{`{"minimum":1.5}`, `1.5`, ""},
		{`{"minimum":1.5}`, `1.4999`, " minimum"},
		{`{"exclusiveMinimum":0}`, `0`, " exclusiveMinimum"},
		{`{"exclusiveMinimum":0}`, `1e-300`, ""},
		{`{"maximum":9007199254740993}`, `9007199254740994`, " maximum"},
		{`{"minimum":0}`, `"a"`, ""},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","maximum":3,"exclusiveMaximum":true}`, `3`, " exclusiveMaximum"},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","minimum":3,"exclusiveMinimum":false}`, `3`, ""},
		{`{"maximum":1}`, `1e99999`, " type"},
		// strings
		{`{"maxLength":2}`, `"日本"`, ""},
		{`{"maxLength":2}`, `"日本語"`, " maxLength"},
		{`{"minLength":2}`, `"😀"`, " minLength"},
		{`{"minLength":1}`, `""`, " minLength"},
		{`{"pattern":"^a+$"}`, `"aaa"`, ""},
		{`{"pattern":"b"}`, `"abc"`, ""},
		{`{"pattern":"^a+$"}`, `"ab"`, " pattern"},
		{`{"pattern":"^\\p{L}+$"}`, `"été"`, ""},
		// arrays
		{`{"maxItems":1}`, `[1,2]`, " maxItems"},
		{`{"minItems":1}`, `[]`, " minItems"},
		{`{"uniqueItems":true}`, `[1,"1",[1],{"a":1}]`, ""},
		{`{"uniqueItems":true}`, `[1,1.0]`, " uniqueItems"},
		{`{"uniqueItems":true}`, `[{"a":1,"b":2},{"b":2,"a":1}]`, " uniqueItems"},
		{`{"uniqueItems":true}`, `[0,-0]`, " uniqueItems"},
		{`{"uniqueItems":false}`, `[1,1]`, ""},
		{`{"items":{"type":"string"}}`, `["a",1,"b",2]`, "/1 type; /3 type"},
		{`{"prefixItems":[{"type":"string"},{"type":"integer"}]}`, `["a",1,null]`, ""},
		{`{"prefixItems":[{"type":"string"}],"items":false}`, `["a",1]`, "/1 false"},
		{`{` + d07 + `"items":[{"type":"string"}],"additionalItems":{"type":"integer"}}`, `["a",1,"x"]`, "/2 type"},
		{`{` + d07 + `"items":{"type":"string"},"additionalItems":false}`, `["a","b"]`, ""},
		{`{` + d07 + `"prefixItems":[{"type":"string"}]}`, `[1]`, ""},
		{`{"contains":{"type":"integer"}}`, `["a",1]`, ""},
		{`{"contains":{"type":"integer"}}`, `["a"]`, " contains"},
		{`{"contains":{"type":"integer"}}`, `[]`, " contains"},
		{`{"contains":{"type":"integer"},"minContains":2}`, `[1,"a"]`, " minContains"},
		{`{"contains":{"type":"integer"},"minContains":0}`, `[]`, ""},
		{`{"contains":{"type":"integer"},"maxContains":1}`, `[1,2]`, " maxContains"},
		{`{` + d07 + `"contains":{"type":"integer"},"maxContains":1}`, `[1,2]`, ""},
		// objects
		{`{"required":["a","b"]}`, `{"a":1}`, " required"},
		{`{"required":["a"]}`, `[]`, ""},
		{`{"maxProperties":1}`, `{"a":1,"b":2}`, " maxProperties"},
		{`{"minProperties":1}`, `{}`, " minProperties"},
		{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, " dependentRequired"},
		{`{"dependentRequired":{"a":["b"]}}`, `{"b":1}`, ""},
		{`{"dependentSchemas":{"a":{"required":["b"]}}}`, `{"a":1}`, " required"},
		{`{` + d07 + `"dependencies":{"a":["b"],"c":{"required":["d"]}}}`, `{"a":1,"c":1}`, " dependentRequired;  required"},
		{`{"properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"a":"x","b":1,"c":2}`, " additionalProperties"},
		{`{"properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}}`, `{"a":"x","b":1,"c":"y"}`, "/c type"},
		{`{"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`, `{"x-a":1,"x-b":"s"}`, "/x-b type"},
		{`{"propertyNames":{"maxLength":2}}`, `{"ab":1,"abc":2}`, " propertyNames"},
		{`{"properties":{"a/b":{"properties":{"c~d":{"type":"null"}}}}}`, `{"a/b":{"c~d":1}}`, "/a~1b/c~0d type"},
		{`{"properties":{"a":false}}`, `{"a":1}`, "/a false"},
		{`{"properties":{"a":true}}`, `{"a":1}`, ""},
		// composition
		{`{"allOf":[{"minimum":1},{"maximum":2}]}`, `3`, " maximum"},
		{`{"anyOf":[{"type":"string"},{"minimum":5}]}`, `1`, " anyOf"},
		{`{"anyOf":[{"type":"string"},{"minimum":5}]}`, `7`, ""},
		{`{"oneOf":[{"type":"integer"},{"minimum":5}]}`, `7`, " oneOf"},
		{`{"oneOf":[{"type":"integer"},{"minimum":5}]}`, `7.5`, ""},
		{`{"oneOf":[{"type":"integer"},{"minimum":5}]}`, `"a"`, ""},
		{`{"oneOf":[{"type":"integer"},{"type":"string"}]}`, `null`, " oneOf"},
		{`{"not":{"type":"null"}}`, `null`, " not"},
		{`{"if":{"type":"integer"},"then":{"minimum":1},"else":{"type":"string"}}`, `0`, " minimum"},
		{`{"if":{"type":"integer"},"then":{"minimum":1},"else":{"type":"string"}}`, `true`, " type"},
		{`{"then":{"minimum":1}}`, `0`, ""},
		{`true`, `{"a":1}`, ""},
		{`false`, `1`, " false"},
		{`{"type":"string","minLength":5,"properties":{"a":{"type":"integer"}}}`, `{"a":"x"}`, " type"},
		// unevaluatedProperties, unevaluatedItems
		{`{"properties":{"a":true},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, " unevaluatedProperties"},
		{`{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}`, `{"a":1}`, ""},
		{`{"allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`, `{"a":1}`, " unevaluatedProperties; /a type"},
		{`{"anyOf":[{"properties":{"a":true},"required":["a"]},{"properties":{"b":true},"required":["b"]}],"unevaluatedProperties":false}`, `{"a":1,"b":2}`, ""},
		{`{"anyOf":[{"properties":{"a":true},"required":["a"]},{"properties":{"b":true},"required":["b"]}],"unevaluatedProperties":false}`, `{"a":1,"c":2}`, " unevaluatedProperties"},
		{`{"if":{"properties":{"a":{"const":1}}},"then":{"properties":{"b":true}},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, ""},
		{`{"if":{"properties":{"a":{"const":1}}},"then":{"properties":{"b":true}},"unevaluatedProperties":false}`, `{"a":2,"b":2}`, " unevaluatedProperties"},
		{`{"not":{"properties":{"a":{"const":2}}},"unevaluatedProperties":false}`, `{"a":1}`, " unevaluatedProperties"},
		{`{"$defs":{"base":{"properties":{"a":true}}},"$ref":"#/$defs/base","unevaluatedProperties":{"type":"integer"}}`, `{"a":"x","b":"y"}`, "/b type"},
		{`{"properties":{"o":{"properties":{"a":true}}},"unevaluatedProperties":false}`, `{"o":{"z":1}}`, ""},
		{`{"allOf":[{"unevaluatedProperties":true}],"unevaluatedProperties":false}`, `{"z":1}`, ""},
		{`{"prefixItems":[true],"unevaluatedItems":false}`, `[1,2]`, "/1 false"},
		{`{"allOf":[{"prefixItems":[true,true]}],"unevaluatedItems":false}`, `[1,2]`, ""},
		{`{"contains":{"type":"string"},"unevaluatedItems":false}`, `["a",1,"b"]`, "/1 false"},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","contains":{"type":"string"},"unevaluatedItems":false}`, `["a"]`, "/0 false"},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","items":[true],"additionalItems":true,"unevaluatedItems":false}`, `[1,2]`, ""},
		{`{` + d07 + `"unevaluatedProperties":false}`, `{"a":1}`, ""},
		// references
		{`{"$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"n":{"$ref":"#/$defs/pos"}}}`, `{"n":0}`, "/n minimum"},
		{`{` + d07 + `"definitions":{"s":{"type":"string"}},"properties":{"n":{"$ref":"#/definitions/s","type":"integer"}}}`, `{"n":"x"}`, ""},
		{`{"$defs":{"s":{"type":"string"}},"properties":{"n":{"$ref":"#/$defs/s","minLength":2}}}`, `{"n":"x"}`, "/n minLength"},
		{`{"$defs":{"a":{"$anchor":"top","type":"null"}},"$ref":"#top"}`, `1`, " type"},
		{`{"$id":"http://x.test/root","$defs":{"a":{"$id":"item","type":"integer"}},"items":{"$ref":"item"}}`, `[1,"a"]`, "/1 type"},
		{`{"$id":"http://x.test/root","$defs":{"a":{"$id":"item","type":"integer"}},"items":{"$ref":"http://x.test/item"}}`, `[1,"a"]`, "/1 type"},
		{`{` + d07 + `"definitions":{"a":{"$id":"#n","type":"integer"}},"items":{"$ref":"#n"}}`, `["a"]`, "/0 type"},
		{`{"$defs":{"a/b":{"type":"integer"}},"$ref":"#/$defs/a~1b"}`, `"x"`, " type"},
		{`{"$defs":{"a b":{"type":"integer"}},"$ref":"#/$defs/a%20b"}`, `"x"`, " type"},
		// $dynamicRef, $recursiveRef
		{strictTree, `{"children":[{"data":1,"children":[]}]}`, ""},
		{strictTree, `{"children":[{"daat":1}]}`, " unevaluatedProperties; /children/0 unevaluatedProperties"},
		{strictTree2019, `{"children":[{"data":1,"children":[]}]}`, ""},
		{strictTree2019, `{"children":[{"daat":1}]}`, " unevaluatedProperties; /children/0 unevaluatedProperties"},
		{`{"$defs":{"t":{"$id":"http://x.test/t","$dynamicAnchor":"node","type":"object","properties":{"kids":{"items":{"$dynamicRef":"#node"}}}}},"$ref":"http://x.test/t"}`, `{"kids":[{"x":1},2]}`, "/kids/1 type"},
		{`{"$defs":{"a":{"type":"integer"}},"items":{"$dynamicRef":"#/$defs/a"}}`, `[1,"x"]`, "/1 type"},
		// recursion
		{`{"type":"object","properties":{"next":{"$ref":"#"},"v":{"type":"integer"}}}`, `{"next":{"next":{"v":"x"}}}`, "/next/next/v type"},
		{`{"$defs":{"tree":{"type":"array","items":{"$ref":"#/$defs/tree"}}},"$ref":"#/$defs/tree"}`, `[[[]],[[1]]]`, "/1/0/0 type"},
	}
	for _, tt := range tests {
		got := strings.Join(violations(t, tt.schema, tt.instance), "; ")
		if got != tt.want {
			t.Errorf("%s on %s:\n got %q\nwant %q", tt.schema, tt.instance, got, tt.want)
		}
	}
}

// TestMessages: each keyword's message, as a refusal line carries it.
func TestMessages(t *testing.T) {
	tests := []struct{ schema, instance, want string }{
		{`{"type":"integer"}`, `"a"`, "got string, want integer"},
		{`{"type":["integer","null"]}`, `1.5`, "got number, want integer or null"},
		{`{"enum":["nginx","sshd"]}`, `"cron"`, "value must be one of 'nginx', 'sshd'"},
		{`{"enum":["it's"]}`, `"x"`, `value must be 'it\'s'`},
		{`{"enum":[[1],2]}`, `3`, "value must be one of enum's 2 values"},
		{`{"const":1}`, `2`, "value must be 1"},
		{`{"enum":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21]}`, `0`, "value must be one of 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, … (21 values)"},
		{`{"minimum":1}`, `0`, "minimum: got 0, want 1"},
		{`{"maximum":1000}`, `1e4`, "maximum: got 1e4, want 1000"},
		{`{"exclusiveMinimum":1}`, `1`, "exclusiveMinimum: got 1, want more than 1"},
		{`{"multipleOf":2}`, `3`, "multipleOf: got 3, want a multiple of 2"},
		{`{"maxItems":2}`, `[1,2,3]`, "maxItems: got 3, want 2"},
		{`{"minLength":3}`, `"ab"`, "minLength: got 2, want 3"},
		{`{"pattern":"^a"}`, `"b\n"`, `'b\n' does not match pattern '^a'`},
		{`{"uniqueItems":true}`, `[1,2,1]`, "items at 0 and 2 are equal"},
		{`{"required":["b","a"]}`, `{}`, "missing properties 'a', 'b'"},
		{`{"additionalProperties":false}`, `{"b":1,"a":2}`, "additional properties 'a', 'b' not allowed"},
		{`{"anyOf":[{"type":"string"},{"type":"null"}]}`, `1`, "matches none of anyOf's 2 schemas"},
		{`{"oneOf":[{},{}]}`, `1`, "matches oneOf's schemas 0 and 1, want exactly one"},
		{`{"not":{}}`, `1`, "must not match the schema under not"},
		{`{"contains":{"type":"string"}}`, `[1]`, "no item matches contains"},
		{`false`, `1`, "not allowed"},
	}
	for _, tt := range tests {
		s, err := Compile([]byte(tt.schema))
		if err != nil {
			t.Fatal(err)
		}
		v, _ := Decode([]byte(tt.instance))
		got := s.Validate(v)
		if len(got) != 1 || got[0].Message != tt.want {
			t.Errorf("%s on %s: got %+v, want %q", tt.schema, tt.instance, got, tt.want)
		}
	}
	s, _ := Compile([]byte(`{"required":["b","a","c"]}`))
	if got := s.Validate(map[string]any{"c": nil}); len(got) != 1 || fmt.Sprint(got[0].Names) != "[a b]" || got[0].Keyword != "required" {
		t.Errorf("required: %+v", got)
	}
}

// TestCompileErrors: a document that cannot be compiled is one line
// naming where and why.
func TestCompileErrors(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{`, "not JSON: unexpected EOF"},
		{`[1]`, "a schema must be a JSON object or a boolean, not array"},
		{`{"type":"strin"}`, "at '/type': type: unknown type 'strin'; allowed: array, boolean, integer, null, number, object, string"},
		{`{"type":[]}`, "at '/type': type: must name at least one type"},
		{`{"minimum":"a"}`, "at '/minimum': minimum: must be a number, not string"},
		{`{"minLength":-1}`, "at '/minLength': minLength: must be a non-negative integer, not -1"},
		{`{"minLength":1.5}`, "at '/minLength': minLength: must be a non-negative integer, not 1.5"},
		{`{"multipleOf":0}`, "at '/multipleOf': multipleOf: must be greater than 0, not 0"},
		{`{"properties":{"a":{"pattern":"(?=x)"}}}`, "at '/properties/a/pattern': pattern: '(?=x)' is not a Go (RE2) regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"},
		{`{"patternProperties":{"(":{}}}`, "at '/patternProperties': patternProperties: '(' is not a Go (RE2) regular expression: error parsing regexp: missing closing ): `(`"},
		{`{"required":["a","a"]}`, "at '/required': required: 'a' is listed twice"},
		{`{"properties":{"a":1}}`, "at '/properties/a': a schema must be a JSON object or a boolean, not number"},
		{`{"allOf":[]}`, "at '/allOf': allOf: must be a non-empty array of schemas"},
		{`{"items":[{}]}`, "at '/items': items: must be a schema in draft 2020-12; an array of schemas is prefixItems"},
		{`{"$ref":"/etc/passwd"}`, "at '/$ref': $ref '/etc/passwd' points outside the schema; a schema may only refer inside itself ('#/$defs/…')"},
		{`{"$id":"http://x.test/a/b","$ref":"c#/x"}`, "at '/$ref': $ref 'c#/x' points outside the schema; a schema may only refer inside itself ('#/$defs/…')"},
		{`{"$ref":"#/$defs/none"}`, "at '/$ref': $ref '#/$defs/none': no such location in the document"},
		{`{"$ref":"#nope"}`, "at '/$ref': $ref '#nope': no anchor 'nope' in the document"},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, "at '/$defs/a': the schema applies itself to the same value without end (a $ref cycle that never goes into a property or item)"},
		{`{"$ref":"#"}`, "the schema applies itself to the same value without end (a $ref cycle that never goes into a property or item)"},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveRef":"#/$defs/a"}`, "at '/$recursiveRef': $recursiveRef: must be '#', not '#/$defs/a'"},
		{`{"$dynamicAnchor":"n","$defs":{"s":{"$anchor":"n"}}}`, "at '/$defs/s': anchor 'n' is defined twice in mem:///schema.json, here and at ''"},
		{`{"items":{"$dynamicRef":"#x"}}`, "at '/items/$dynamicRef': $dynamicRef '#x': no anchor 'x' in the document"},
		{`{"$dynamicAnchor":"n","allOf":[{"$dynamicRef":"#n"}]}`, "the schema applies itself to the same value without end (a $ref cycle that never goes into a property or item)"},
		{`{"unevaluatedItems":1}`, "at '/unevaluatedItems': a schema must be a JSON object or a boolean, not number"},
		{`{"$schema":"http://example.com/mine"}`, "at '/$schema': unknown $schema 'http://example.com/mine'; allowed: " + knownSchemas},
		{`{"$defs":{"a":{"type":1}}}`, "at '/$defs/a/type': type: must be a string or an array of strings"},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMaximum":3}`, "at '/exclusiveMaximum': exclusiveMaximum: must be a boolean in draft-04"},
		{`{"minimum":1e999999}`, "at '/minimum': minimum: number out of range"},
	}
	for _, tt := range tests {
		_, err := Compile([]byte(tt.schema))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Compile(%s):\n got %v\nwant %s", tt.schema, err, tt.want)
		}
	}
	// Keywords a draft does not have are ignored, as unknown ones are.
	for _, schema := range []string{
		`{"` + d07[1:] + `"unevaluatedProperties":false,"$dynamicRef":"x"}`,
		`{"frobnicate":{"type":1},"definitions":{"a":{"type":1}}}`,
	} {
		if _, err := Compile([]byte(schema)); err != nil {
			t.Errorf("Compile(%s): %v", schema, err)
		}
	}
}

// TestDecode: one JSON value, numbers kept as written.
func TestDecode(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1.50}`: "map[a:1.50] <nil>",
		` 1 `:         "1 <nil>",
		``:            "<nil> no JSON value",
		`1 2`:         "<nil> more than one JSON value",
		`{} ]`:        "<nil> after the JSON value: invalid character ']' looking for beginning of value",
		`{"a":}`:      "<nil> invalid character '}' looking for beginning of value",
	} {
		v, err := Decode([]byte(in))
		if got := fmt.Sprint(v, " ", err); got != want {
			t.Errorf("Decode(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestDepth: a value nested deeper than MaxDepth is a violation against a
// recursive schema, not a crash.
func TestDepth(t *testing.T) {
	s, err := Compile([]byte(`{"items":{"$ref":"#"}}`))
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	v, err := Decode([]byte(deep))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Validate(v)
	if len(got) != 1 || got[0].Keyword != "depth" || len(got[0].Location) != MaxDepth+1 {
		t.Fatalf("got %d violations, first %+v", len(got), got[:min(1, len(got))])
	}
	if s.Valid(v) {
		t.Error("Valid of a too deep value")
	}
}

// TestSteps: a small document that applies a subschema exponentially
// often gives up with one violation.
func TestSteps(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range 40 {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	b.WriteString(`"d40":{"type":"integer"}}}`)
	s, err := Compile([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Validate(1)
	if len(got) == 0 || got[len(got)-1].Keyword != "steps" {
		t.Fatalf("got %d violations, last %+v", len(got), got[len(got)-1])
	}
}
