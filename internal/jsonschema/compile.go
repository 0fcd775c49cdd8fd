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

// dynamicTargets compiles every schema a $dynamicRef or $recursiveRef may
// land on, keyed by resource URI and anchor name ("URI#name"; "URI#" for
// a $recursiveAnchor), and tells each dynamic reference its candidates,
// for the cycle check.
func (c *compiler) dynamicTargets() (map[string]*node, error) {
	if len(c.dynamic) == 0 {
		return nil, nil
	}
	out := make(map[string]*node, len(c.dynamic))
	for _, key := range sortedKeys(c.dynamic) {
		n, err := c.nodeAt(c.dynamic[key])
		if err != nil {
			return nil, err
		}
		out[key] = n
	}
	for _, loc := range sortedKeys(c.nodes) {
		n := c.nodes[loc]
		if !n.dynamic {
			continue
		}
		for _, key := range sortedKeys(out) {
			if key[strings.IndexByte(key, '#'):] == "#"+n.dynamicName {
				n.dynamicTargets = append(n.dynamicTargets, out[key])
			}
		}
	}
	return out, nil
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

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func unescapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// children calls visit for each subschema position of m: its location
// suffix and value. Both $defs and definitions are visited, for $id and
// anchors.
func (c *compiler) children(m map[string]any, visit func(suffix string, v any) error) error {
	for _, k := range sortedKeys(m) {
		v := m[k]
		key := "/" + escapeToken(k)
		switch k {
		case "additionalProperties", "propertyNames", "contains", "not", "if", "then", "else", "additionalItems", "unevaluatedItems", "unevaluatedProperties", "items":
			if arr, ok := v.([]any); ok && k == "items" {
				for i, e := range arr {
					if err := visit(key+"/"+strconv.Itoa(i), e); err != nil {
						return err
					}
				}
				continue
			}
			if err := visit(key, v); err != nil {
				return err
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			arr, _ := v.([]any)
			for i, e := range arr {
				if err := visit(key+"/"+strconv.Itoa(i), e); err != nil {
					return err
				}
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			obj, _ := v.(map[string]any)
			for _, name := range sortedKeys(obj) {
				if err := visit(key+"/"+escapeToken(name), obj[name]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// scan records the base URI of every schema, and the resources ($id) and
// anchors the document defines.
func (c *compiler) scan(v any, loc string, base *url.URL) error {
	m, ok := v.(map[string]any)
	if !ok {
		c.bases[loc] = base
		return nil
	}
	if id, ok := m["$id"].(string); ok {
		u, err := url.Parse(id)
		if err != nil {
			return &CompileError{Location: loc + "/$id", Message: fmt.Sprintf("$id '%s' is not a URI reference", id)}
		}
		switch {
		case c.dialect.refAlone && id != "" && id[0] == '#':
			// A draft-07 "$id": "#name" is an anchor.
			c.anchors[uriKey(base)+"#"+u.Fragment] = loc
		default:
			if u.Fragment != "" {
				return &CompileError{Location: loc + "/$id", Message: fmt.Sprintf("$id '%s' has a fragment; name an anchor with $anchor", id)}
			}
			base = base.ResolveReference(u)
			c.resources[uriKey(base)] = loc
		}
	}
	for _, k := range []string{"$anchor", "$dynamicAnchor"} {
		if a, ok := m[k].(string); ok && !c.dialect.refAlone {
			key := uriKey(base) + "#" + a
			if at, ok := c.anchors[key]; ok && at != loc {
				return &CompileError{Location: loc, Message: fmt.Sprintf("anchor '%s' is defined twice in %s, here and at '%s'", a, uriKey(base), at)}
			}
			c.anchors[key] = loc
			if k == "$dynamicAnchor" && c.dialect == draft2020 {
				c.dynamic[uriKey(base)+"#"+a] = loc
			}
		}
	}
	if r, _ := m["$recursiveAnchor"].(bool); r && c.dialect == draft2019 && c.resources[uriKey(base)] == loc {
		c.dynamic[uriKey(base)+"#"] = loc
	}
	c.bases[loc] = base
	return c.children(m, func(suffix string, child any) error {
		return c.scan(child, loc+suffix, base)
	})
}

// uriKey is a URI without its fragment.
func uriKey(u *url.URL) string {
	v := *u
	v.Fragment, v.RawFragment = "", ""
	return v.String()
}

// baseOf is the base URI at a location: its own, or its nearest scanned
// parent's.
func (c *compiler) baseOf(loc string) *url.URL {
	for {
		if b, ok := c.bases[loc]; ok {
			return b
		}
		i := strings.LastIndexByte(loc, '/')
		if i < 0 {
			return c.bases[""]
		}
		loc = loc[:i]
	}
}

// valueAt walks a JSON pointer (location) from the document's root.
func (c *compiler) valueAt(loc string) (any, bool) {
	v := c.doc
	if loc == "" {
		return v, true
	}
	for _, tok := range strings.Split(loc[1:], "/") {
		tok = unescapeToken(tok)
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != tok {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
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

// resolve finds the location a $ref names, inside the document only.
func (c *compiler) resolve(loc, keyword, ref string) (string, error) {
	at := loc + "/" + keyword
	u, err := url.Parse(ref)
	if err != nil {
		return "", &CompileError{Location: at, Message: fmt.Sprintf("%s '%s' is not a URI reference", keyword, ref)}
	}
	abs := c.baseOf(loc).ResolveReference(u)
	root, ok := c.resources[uriKey(abs)]
	if !ok {
		return "", &CompileError{Location: at, Message: fmt.Sprintf("%s '%s' points outside the schema; a schema may only refer inside itself ('#/$defs/…')", keyword, ref)}
	}
	frag := abs.Fragment
	switch {
	case frag == "":
		return root, nil
	case frag[0] == '/':
		return root + frag, nil
	}
	if at, ok := c.anchors[uriKey(abs)+"#"+frag]; ok {
		return at, nil
	}
	return "", &CompileError{Location: at, Message: fmt.Sprintf("%s '%s': no anchor '%s' in the document", keyword, ref, frag)}
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
		for i, e := range arr {
			if out[i], ok = e.(string); !ok {
				return nil, fail(k, "must be an array of strings")
			}
			if slices.Contains(out[:i], out[i]) {
				return nil, fail(k, "'%s' is listed twice", out[i])
			}
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
				return fail("type", "unknown type '%s'; allowed: %s", t, joinNames(typeNames))
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

// checkCycles refuses a schema that applies itself to the same value
// without end: a cycle of $ref, allOf, anyOf, oneOf, not, if/then/else or
// dependentSchemas that never goes into a part of the value.
func checkCycles(root *node) error {
	const (
		unseen = iota
		open
		done
	)
	state := map[*node]int{}
	var visit func(n *node) error
	var all []*node
	collect := func(n *node) {
		if _, ok := state[n]; !ok {
			state[n] = unseen
			all = append(all, n)
		}
	}
	// Every node reachable from the root, by any keyword.
	collect(root)
	for i := 0; i < len(all); i++ {
		for _, s := range all[i].every() {
			collect(s)
		}
	}
	visit = func(n *node) error {
		switch state[n] {
		case open:
			return &CompileError{Location: n.loc, Message: "the schema applies itself to the same value without end (a $ref cycle that never goes into a property or item)"}
		case done:
			return nil
		}
		state[n] = open
		for _, s := range n.inPlace() {
			if err := visit(s); err != nil {
				return err
			}
		}
		state[n] = done
		return nil
	}
	for _, n := range all {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}

// every lists all the subschemas of n.
func (n *node) every() []*node {
	out := n.inPlace()
	out = append(out, n.prefixItems...)
	for _, s := range []*node{n.items, n.contains, n.additionalProperties, n.propertyNames, n.unevaluatedItems, n.unevaluatedProperties} {
		if s != nil {
			out = append(out, s)
		}
	}
	for _, k := range n.propertyOrder {
		out = append(out, n.properties[k])
	}
	for _, p := range n.patternProperties {
		out = append(out, p.schema)
	}
	return out
}

// dynamicRef reads $dynamicRef (2020-12) or $recursiveRef (2019-09). It
// resolves like $ref; when its target is itself a $dynamicAnchor of the
// same name (a $recursiveAnchor), the reference is dynamic: at validation
// it lands on the outermost resource, in the dynamic scope, that defines
// the anchor.
func (c *compiler) dynamicRef(n *node, m map[string]any) error {
	k := "$dynamicRef"
	if c.dialect == draft2019 {
		k = "$recursiveRef"
	} else if c.dialect != draft2020 {
		return nil
	}
	r, ok := m[k]
	if !ok {
		return nil
	}
	ref, ok := r.(string)
	if !ok {
		return &CompileError{Location: n.loc + "/" + k, Message: k + ": must be a string"}
	}
	if k == "$recursiveRef" && ref != "#" {
		return &CompileError{Location: n.loc + "/" + k, Message: fmt.Sprintf("%s: must be '#', not '%s'", k, ref)}
	}
	target, err := c.resolve(n.loc, k, ref)
	if err != nil {
		return err
	}
	if n.dynamicRef, err = c.nodeAt(target); err != nil {
		return err
	}
	u, _ := url.Parse(ref)
	abs := c.baseOf(n.loc).ResolveReference(u)
	name := abs.Fragment
	if k == "$recursiveRef" {
		name = ""
	}
	if at, ok := c.dynamic[uriKey(abs)+"#"+name]; ok && at == target {
		n.dynamic, n.dynamicName = true, name
	}
	return nil
}

// resourceOf is the URI of the resource a location is in.
func (c *compiler) resourceOf(loc string) string { return uriKey(c.baseOf(loc)) }
