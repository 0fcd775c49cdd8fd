package jsonschema

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

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
	byName := map[string][]*node{}
	for _, key := range sortedKeys(out) {
		name := key[strings.IndexByte(key, '#')+1:]
		byName[name] = append(byName[name], out[key])
	}
	for _, n := range c.nodes {
		if n.dynamic {
			n.dynamicTargets = byName[n.dynamicName]
		}
	}
	return out, nil
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
		if _, ok := c.valueAt(root + frag); !ok {
			return "", &CompileError{Location: at, Message: fmt.Sprintf("%s '%s': no such location in the document", keyword, ref)}
		}
		return root + frag, nil
	}
	if at, ok := c.anchors[uriKey(abs)+"#"+frag]; ok {
		return at, nil
	}
	return "", &CompileError{Location: at, Message: fmt.Sprintf("%s '%s': no anchor '%s' in the document", keyword, ref, frag)}
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
