package jsonschema

import "strings"

// dialect is what a draft's keywords mean, as far as they differ between
// the drafts this package reads.
type dialect struct {
	name string
	// itemsArray: items may be an array of schemas, additionalItems the
	// rest (draft-07, 2019-09); otherwise prefixItems and items (2020-12).
	itemsArray bool
	// refAlone: siblings of $ref are ignored (draft-07 and before).
	refAlone bool
	// dependencies is draft-07's keyword; 2019-09 split it into
	// dependentRequired and dependentSchemas, and added maxContains,
	// minContains, $anchor and $defs.
	dependencies bool
	// boolExclusive: exclusiveMaximum and exclusiveMinimum are booleans
	// that modify maximum and minimum (draft-04).
	boolExclusive bool
}

var (
	draft2020 = &dialect{name: "2020-12"}
	draft2019 = &dialect{name: "2019-09", itemsArray: true}
	draft07   = &dialect{name: "draft-07", itemsArray: true, refAlone: true, dependencies: true}
	draft04   = &dialect{name: "draft-04", itemsArray: true, refAlone: true, dependencies: true, boolExclusive: true}
)

// dialectOf finds the dialect a $schema names, with or without its
// trailing "#", by http or https. Draft-06 reads as draft-07: draft-07
// only added keywords (if, then, else, content*). A switch, not a map:
// the package sets up nothing at init.
func dialectOf(uri string) (*dialect, bool) {
	key := strings.TrimSuffix(uri, "#")
	if rest, ok := strings.CutPrefix(key, "https://"); ok {
		key = "http://" + rest
	}
	switch key {
	case "http://json-schema.org/draft/2020-12/schema":
		return draft2020, true
	case "http://json-schema.org/draft/2019-09/schema":
		return draft2019, true
	case "http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema":
		return draft07, true
	case "http://json-schema.org/draft-04/schema":
		return draft04, true
	}
	return nil, false
}

// knownSchemas are the $schema values dialectOf takes, for the refusal of
// another.
const knownSchemas = "https://json-schema.org/draft/2020-12/schema, https://json-schema.org/draft/2019-09/schema, http://json-schema.org/draft-07/schema#, http://json-schema.org/draft-06/schema#, http://json-schema.org/draft-04/schema#"
