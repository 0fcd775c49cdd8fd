package jsonschema

import (
	"fmt"
	"strconv"
)

// evaluated is what the keywords applied to one value evaluated: the
// annotations unevaluatedProperties and unevaluatedItems read. Its
// methods do nothing on a nil *evaluated, which is how validation runs
// where neither keyword is around.
type evaluated struct {
	props    map[string]bool
	allProps bool
	items    int // items before this index are evaluated
	allItems bool
	itemSet  map[int]bool // items contains matched (2020-12)
}

func (e *evaluated) prop(name string) {
	if e == nil {
		return
	}
	if e.props == nil {
		e.props = map[string]bool{}
	}
	e.props[name] = true
}

func (e *evaluated) item(i int) {
	if e.itemSet == nil {
		e.itemSet = map[int]bool{}
	}
	e.itemSet[i] = true
}

func (e *evaluated) merge(o *evaluated) {
	if e == nil || o == nil {
		return
	}
	for name := range o.props {
		e.prop(name)
	}
	e.allProps = e.allProps || o.allProps
	e.items = max(e.items, o.items)
	e.allItems = e.allItems || o.allItems
	for i := range o.itemSet {
		e.item(i)
	}
}

// unevaluated applies unevaluatedProperties and unevaluatedItems to the
// parts no other keyword evaluated, and then counts every part evaluated.
func (vd *validator) unevaluated(n *node, v any, ev *evaluated) {
	switch v := v.(type) {
	case map[string]any:
		if n.unevaluatedProperties == nil || ev.allProps {
			return
		}
		// unevaluatedProperties: false is one violation naming them all,
		// as additionalProperties: false is.
		var extra []string
		closed := n.unevaluatedProperties.always != nil && !*n.unevaluatedProperties.always
		for _, name := range sortedKeys(v) {
			switch {
			case ev.props[name]:
			case closed:
				extra = append(extra, name)
			default:
				vd.child(n.unevaluatedProperties, v[name], name)
				if vd.stop() {
					return
				}
			}
		}
		if extra != nil {
			vd.add("unevaluatedProperties", fmt.Sprintf("unevaluated properties %s not allowed", quoteAll(extra)), extra...)
		}
		ev.allProps = true
	case []any:
		if n.unevaluatedItems == nil || ev.allItems {
			return
		}
		for i := ev.items; i < len(v); i++ {
			if !ev.itemSet[i] {
				vd.child(n.unevaluatedItems, v[i], strconv.Itoa(i))
				if vd.stop() {
					return
				}
			}
		}
		ev.allItems = true
	}
}
