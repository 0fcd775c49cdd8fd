package jsonschema

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
