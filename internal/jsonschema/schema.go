package jsonschema

import (
	"fmt"
	"regexp"
)

// Schema is a compiled schema document. It is immutable and safe for
// concurrent use.
type Schema struct {
	root    *node
	dialect *dialect
	dynamic map[string]*node // where a dynamic reference may land: "URI#name"
}

// Dialect names the draft the schema was read as: "2020-12", "2019-09",
// "draft-07" or "draft-04".
func (s *Schema) Dialect() string { return s.dialect.name }

// CompileError is a schema document that cannot be compiled.
type CompileError struct {
	// Location is the JSON pointer, inside the document, of the schema
	// or keyword at fault; "" for the document as a whole.
	Location string
	Message  string
}

// Error is one line: "at '/properties/a/pattern': …".
func (e *CompileError) Error() string {
	if e.Location == "" {
		return e.Message
	}
	return fmt.Sprintf("at '%s': %s", e.Location, e.Message)
}

// node is one compiled (sub)schema. Absent keywords are zero: nil
// pointers and slices, -1 for the counts.
type node struct {
	loc    string // JSON pointer of the schema in its document
	always *bool  // a boolean schema

	ref *node // $ref

	resource       string // the URI of the resource the schema is in
	dynamicRef     *node  // $dynamicRef or $recursiveRef, as resolved statically
	dynamic        bool   // dynamicRef names a $dynamicAnchor: resolved in the dynamic scope
	dynamicName    string // its anchor's name; "" for a $recursiveAnchor
	dynamicTargets []*node

	types    []string // "integer" among them as written
	enum     []any
	hasEnum  bool
	constant any
	hasConst bool

	multipleOf       *number
	maximum, minimum *number
	exclusiveMaximum *number
	exclusiveMinimum *number

	maxLength, minLength int
	pattern              *regexp.Regexp

	maxItems, minItems       int
	uniqueItems              bool
	prefixItems              []*node
	items                    *node // every item after prefixItems
	contains                 *node
	containsEvaluates        bool // contains counts for unevaluatedItems (2020-12)
	maxContains, minContains int
	unevaluatedItems         *node

	maxProperties, minProperties int
	required                     []string
	dependentRequired            map[string][]string
	dependentSchemas             map[string]*node
	properties                   map[string]*node
	propertyOrder                []string // properties' names, sorted
	patternProperties            []patternProperty
	additionalProperties         *node
	propertyNames                *node
	unevaluatedProperties        *node

	allOf, anyOf, oneOf []*node
	not                 *node
	ifSchema            *node
	then, elseSchema    *node
}

type patternProperty struct {
	re     *regexp.Regexp
	schema *node
}

// inPlace lists the schemas n applies to the value itself (not to a part
// of it): a cycle of these never ends.
func (n *node) inPlace() []*node {
	var out []*node
	if n.ref != nil {
		out = append(out, n.ref)
	}
	if n.dynamicRef != nil {
		out = append(out, n.dynamicRef)
		out = append(out, n.dynamicTargets...)
	}
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	for _, s := range []*node{n.not, n.ifSchema, n.then, n.elseSchema} {
		if s != nil {
			out = append(out, s)
		}
	}
	for _, k := range sortedKeys(n.dependentSchemas) {
		out = append(out, n.dependentSchemas[k])
	}
	return out
}
