package jsonschema

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// defaultBase is the base URI of a document without an $id of its own.
const defaultBase = "mem:///schema.json"

// Compile reads a schema document (JSON) and compiles it once. The
// dialect is draft 2020-12 unless the document's $schema names another.
// The error is a [*CompileError].
func Compile(doc []byte) (*Schema, error) {
	v, err := Decode(doc)
	if err != nil {
		return nil, &CompileError{Message: "not JSON: " + err.Error()}
	}
	return CompileValue(v)
}

// CompileValue compiles a document already decoded by [Decode] (or by
// encoding/json with UseNumber).
func CompileValue(doc any) (*Schema, error) {
	c := &compiler{doc: doc, dialect: draft2020, nodes: map[string]*node{}, bases: map[string]*url.URL{}, resources: map[string]string{}, anchors: map[string]string{}, dynamic: map[string]string{}}
	switch d := doc.(type) {
	case bool:
	case map[string]any:
		if s, ok := d["$schema"]; ok {
			uri, ok := s.(string)
			if !ok {
				return nil, &CompileError{Location: "/$schema", Message: "$schema must be a string"}
			}
			if c.dialect, ok = dialectOf(uri); !ok {
				return nil, &CompileError{Location: "/$schema", Message: fmt.Sprintf("unknown $schema '%s'; allowed: %s", uri, knownSchemas)}
			}
		}
	default:
		return nil, &CompileError{Message: "a schema must be a JSON object or a boolean, not " + typeName(doc)}
	}
	base, _ := url.Parse(defaultBase)
	c.resources[defaultBase] = ""
	if err := c.scan(doc, "", base); err != nil {
		return nil, err
	}
	root, err := c.nodeAt("")
	if err != nil {
		return nil, err
	}
	dynamic, err := c.dynamicTargets()
	if err != nil {
		return nil, err
	}
	if err := checkCycles(root); err != nil {
		return nil, err
	}
	return &Schema{root: root, dialect: c.dialect, dynamic: dynamic}, nil
}

type compiler struct {
	doc       any
	dialect   *dialect
	nodes     map[string]*node    // by location, compiled or being compiled
	bases     map[string]*url.URL // base URI of each schema location scanned
	resources map[string]string   // URI (no fragment) → location
	anchors   map[string]string   // URI#anchor → location
	dynamic   map[string]string   // URI#name → location of a $dynamicAnchor; URI# of a $recursiveAnchor
}

// nodeAt compiles the schema at a location once; a reference back to a
// schema being compiled gets the same node.
func (c *compiler) nodeAt(loc string) (*node, error) {
	if n, ok := c.nodes[loc]; ok {
		return n, nil
	}
	v, ok := c.valueAt(loc)
	if !ok {
		return nil, &CompileError{Location: loc, Message: "no such location in the document"}
	}
	n := &node{loc: loc, resource: c.resourceOf(loc), maxLength: -1, minLength: -1, maxItems: -1, minItems: -1, maxContains: -1, minContains: -1, maxProperties: -1, minProperties: -1}
	c.nodes[loc] = n
	switch v := v.(type) {
	case bool:
		n.always = &v
		return n, nil
	case map[string]any:
		return n, c.compileObject(n, v)
	}
	return nil, &CompileError{Location: loc, Message: "a schema must be a JSON object or a boolean, not " + typeName(v)}
}

func (c *compiler) compileObject(n *node, m map[string]any) error {
	d := c.dialect
	at := func(k string) string { return n.loc + "/" + escapeToken(k) }
	fail := func(k, format string, args ...any) error {
		return &CompileError{Location: at(k), Message: k + ": " + fmt.Sprintf(format, args...)}
	}
	if r, ok := m["$ref"]; ok {
		ref, ok := r.(string)
		if !ok {
			return fail("$ref", "must be a string")
		}
		target, err := c.resolve(n.loc, "$ref", ref)
		if err != nil {
			return err
		}
		if n.ref, err = c.nodeAt(target); err != nil {
			return err
		}
		if d.refAlone {
			return nil
		}
	}
	if err := c.dynamicRef(n, m); err != nil {
		return err
	}
	schema := func(k string) (*node, error) {
		if _, ok := m[k]; !ok {
			return nil, nil
		}
		return c.nodeAt(at(k))
	}
	schemas := func(k string, nonEmpty bool) ([]*node, error) {
		v, ok := m[k]
		if !ok {
			return nil, nil
		}
		arr, ok := v.([]any)
		if !ok || nonEmpty && len(arr) == 0 {
			return nil, fail(k, "must be a non-empty array of schemas")
		}
		out := make([]*node, len(arr))
		for i := range arr {
			var err error
			if out[i], err = c.nodeAt(at(k) + "/" + strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	schemaMap := func(k string) (map[string]*node, error) {
		v, ok := m[k]
		if !ok {
			return nil, nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fail(k, "must be an object of schemas")
		}
		out := make(map[string]*node, len(obj))
		for _, name := range sortedKeys(obj) {
			var err error
			if out[name], err = c.nodeAt(at(k) + "/" + escapeToken(name)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	num := func(k string) (*number, error) {
		v, ok := m[k]
		if !ok {
			return nil, nil
		}
		s, ok := v.(json.Number)
		if !ok {
			return nil, fail(k, "must be a number, not %s", typeName(v))
		}
		x, err := parseNumber(string(s))
		if err != nil {
			return nil, fail(k, "%v", err)
		}
		return &x, nil
	}
	count := func(k string, dst *int) error {
		x, err := num(k)
		if err != nil || x == nil {
			return err
		}
		i, ok := x.intOf()
		if !ok {
			return fail(k, "must be a non-negative integer, not %s", x.text)
		}
		*dst = i
		return nil
	}
	stringList := func(k string) ([]string, error) {
		arr, ok := m[k].([]any)
		if !ok {
			return nil, fail(k, "must be an array of strings")
		}
		out := make([]string, len(arr))
		seen := make(map[string]bool, len(arr))
		for i, e := range arr {
			if out[i], ok = e.(string); !ok {
				return nil, fail(k, "must be an array of strings")
			}
			if seen[out[i]] {
				return nil, fail(k, "%s is listed twice", quote(out[i]))
			}
			seen[out[i]] = true
		}
		return out, nil
	}
	regex := func(k, pattern string) (*regexp.Regexp, error) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, fail(k, "%s is not a Go (RE2) regular expression: %v", quote(pattern), err)
		}
		return re, nil
	}
	var err error

	// Any value.
	if v, ok := m["type"]; ok {
		switch t := v.(type) {
		case string:
			n.types = []string{t}
		case []any:
			if len(t) == 0 {
				return fail("type", "must name at least one type")
			}
			if n.types, err = stringList("type"); err != nil {
				return err
			}
		default:
			return fail("type", "must be a string or an array of strings")
		}
		for _, t := range n.types {
			if !slices.Contains(typeNames, t) {
				return fail("type", "unknown type %s; allowed: %s", quote(t), joinNames(typeNames))
			}
		}
	}
	if v, ok := m["enum"]; ok {
		if n.enum, ok = v.([]any); !ok {
			return fail("enum", "must be an array")
		}
		n.hasEnum = true
	}
	n.constant, n.hasConst = m["const"]

	// Numbers.
	if n.multipleOf, err = num("multipleOf"); err != nil {
		return err
	}
	if n.multipleOf != nil && n.multipleOf.cmp(number{small: true}) <= 0 {
		return fail("multipleOf", "must be greater than 0, not %s", n.multipleOf.text)
	}
	if n.maximum, err = num("maximum"); err != nil {
		return err
	}
	if n.minimum, err = num("minimum"); err != nil {
		return err
	}
	if d.boolExclusive {
		for _, k := range []string{"exclusiveMaximum", "exclusiveMinimum"} {
			v, ok := m[k]
			if !ok {
				continue
			}
			b, ok := v.(bool)
			if !ok {
				return fail(k, "must be a boolean in draft-04")
			}
			if b && k == "exclusiveMaximum" {
				n.exclusiveMaximum, n.maximum = n.maximum, nil
			} else if b {
				n.exclusiveMinimum, n.minimum = n.minimum, nil
			}
		}
	} else {
		if n.exclusiveMaximum, err = num("exclusiveMaximum"); err != nil {
			return err
		}
		if n.exclusiveMinimum, err = num("exclusiveMinimum"); err != nil {
			return err
		}
	}

	// Lengths and sizes.
	for _, c := range []struct {
		k   string
		dst *int
	}{{"maxLength", &n.maxLength}, {"minLength", &n.minLength}, {"maxItems", &n.maxItems}, {"minItems", &n.minItems}, {"maxProperties", &n.maxProperties}, {"minProperties", &n.minProperties}} {
		if err := count(c.k, c.dst); err != nil {
			return err
		}
	}
	if v, ok := m["pattern"]; ok {
		p, ok := v.(string)
		if !ok {
			return fail("pattern", "must be a string")
		}
		if n.pattern, err = regex("pattern", p); err != nil {
			return err
		}
	}

	// Arrays.
	if v, ok := m["uniqueItems"]; ok {
		if n.uniqueItems, ok = v.(bool); !ok {
			return fail("uniqueItems", "must be a boolean")
		}
	}
	if d.itemsArray {
		if _, ok := m["items"].([]any); ok {
			if n.prefixItems, err = schemas("items", false); err != nil {
				return err
			}
			if n.items, err = schema("additionalItems"); err != nil {
				return err
			}
		} else if n.items, err = schema("items"); err != nil {
			return err
		}
	} else {
		if _, ok := m["items"].([]any); ok {
			return fail("items", "must be a schema in draft 2020-12; an array of schemas is prefixItems")
		}
		if n.prefixItems, err = schemas("prefixItems", false); err != nil {
			return err
		}
		if n.items, err = schema("items"); err != nil {
			return err
		}
	}
	if n.contains, err = schema("contains"); err != nil {
		return err
	}
	n.containsEvaluates = d == draft2020
	if !d.dependencies {
		if err := count("maxContains", &n.maxContains); err != nil {
			return err
		}
		if err := count("minContains", &n.minContains); err != nil {
			return err
		}
	}

	// Objects.
	if _, ok := m["required"]; ok {
		if n.required, err = stringList("required"); err != nil {
			return err
		}
	}
	depKeyword := "dependentRequired"
	if d.dependencies {
		depKeyword = "dependencies"
	}
	if n.dependentRequired, n.dependentSchemas, err = c.dependencies(n, m, depKeyword); err != nil {
		return err
	}
	if n.properties, err = schemaMap("properties"); err != nil {
		return err
	}
	n.propertyOrder = sortedKeys(n.properties)
	if v, ok := m["patternProperties"]; ok {
		obj, ok := v.(map[string]any)
		if !ok {
			return fail("patternProperties", "must be an object of schemas")
		}
		for _, p := range sortedKeys(obj) {
			re, err := regex("patternProperties", p)
			if err != nil {
				return err
			}
			s, err := c.nodeAt(at("patternProperties") + "/" + escapeToken(p))
			if err != nil {
				return err
			}
			n.patternProperties = append(n.patternProperties, patternProperty{re, s})
		}
	}
	if n.additionalProperties, err = schema("additionalProperties"); err != nil {
		return err
	}
	if n.propertyNames, err = schema("propertyNames"); err != nil {
		return err
	}

	if !d.refAlone {
		if n.unevaluatedItems, err = schema("unevaluatedItems"); err != nil {
			return err
		}
		if n.unevaluatedProperties, err = schema("unevaluatedProperties"); err != nil {
			return err
		}
	}

	// Composition and conditions.
	if n.allOf, err = schemas("allOf", true); err != nil {
		return err
	}
	if n.anyOf, err = schemas("anyOf", true); err != nil {
		return err
	}
	if n.oneOf, err = schemas("oneOf", true); err != nil {
		return err
	}
	if n.not, err = schema("not"); err != nil {
		return err
	}
	if n.ifSchema, err = schema("if"); err != nil {
		return err
	}
	if n.ifSchema != nil {
		if n.then, err = schema("then"); err != nil {
			return err
		}
		if n.elseSchema, err = schema("else"); err != nil {
			return err
		}
	}

	// Definitions compile even when nothing refers to them, so that a
	// broken one is found now.
	defs := "$defs"
	if d.refAlone {
		defs = "definitions"
	}
	if _, err := schemaMap(defs); err != nil {
		return err
	}
	return nil
}

// dependencies reads dependentRequired and dependentSchemas, or
// draft-07's dependencies (each value a list of names or a schema).
func (c *compiler) dependencies(n *node, m map[string]any, keyword string) (map[string][]string, map[string]*node, error) {
	var req map[string][]string
	var sch map[string]*node
	read := func(k string, lists, schemas bool) error {
		v, ok := m[k]
		if !ok {
			return nil
		}
		at := n.loc + "/" + escapeToken(k)
		obj, ok := v.(map[string]any)
		if !ok {
			return &CompileError{Location: at, Message: k + ": must be an object"}
		}
		for _, name := range sortedKeys(obj) {
			loc := at + "/" + escapeToken(name)
			switch e := obj[name].(type) {
			case []any:
				if !lists {
					return &CompileError{Location: loc, Message: k + ": must be an object of schemas"}
				}
				names := make([]string, len(e))
				for i, x := range e {
					s, ok := x.(string)
					if !ok {
						return &CompileError{Location: loc, Message: k + ": must list property names (strings)"}
					}
					names[i] = s
				}
				if req == nil {
					req = map[string][]string{}
				}
				req[name] = names
			default:
				if !schemas {
					return &CompileError{Location: loc, Message: k + ": must be an object of arrays of strings"}
				}
				s, err := c.nodeAt(loc)
				if err != nil {
					return err
				}
				if sch == nil {
					sch = map[string]*node{}
				}
				sch[name] = s
			}
		}
		return nil
	}
	if keyword == "dependencies" {
		return req, sch, read("dependencies", true, true)
	}
	if err := read("dependentRequired", true, false); err != nil {
		return nil, nil, err
	}
	return req, sch, read("dependentSchemas", false, true)
}

// typeNames are the names type takes.
var typeNames = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

func joinNames(names []string) string { return strings.Join(names, ", ") }
