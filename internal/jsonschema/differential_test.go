package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	oracle "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// TestDifferential compares Validate with santhosh-tekuri/jsonschema (the
// library shelter used before; here a test's oracle only) over random
// schemas and values: the same compile verdict, the same valid/invalid
// verdict, and the same instance locations of the leaf violations.
func TestDifferential(t *testing.T) {
	const schemas, perSchema = 1200, 5
	r := rand.New(rand.NewPCG(15, 2020))
	pairs, invalid := 0, 0
	for i := range schemas {
		g := &generator{r: r, draft07: i%2 == 1}
		doc := g.document()
		raw, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		mine, err := Compile(raw)
		theirs, theirErr := compileOracle(raw)
		if (err == nil) != (theirErr == nil) {
			t.Errorf("compile verdicts differ on %s:\n mine   %v\n theirs %v", raw, err, theirErr)
			continue
		}
		if err != nil {
			continue
		}
		for range perSchema {
			inst, _ := json.Marshal(g.value(3))
			v, err := Decode(inst)
			if err != nil {
				t.Fatal(err)
			}
			ov, _ := oracle.UnmarshalJSON(bytes.NewReader(inst))
			pairs++
			got := mine.Validate(v)
			oerr := theirs.Validate(ov)
			if (len(got) == 0) != (oerr == nil) {
				t.Errorf("verdicts differ on %s with %s:\n mine   %+v\n theirs %v", raw, inst, got, oerr)
				continue
			}
			if oerr == nil {
				continue
			}
			invalid++
			if mine, theirs := leaves(t, got, oerr); !slices.Equal(mine, theirs) {
				t.Errorf("leaf locations differ on %s with %s:\n mine   %v %+v\n theirs %v\n%v", raw, inst, mine, got, theirs, oerr)
			}
		}
	}
	if invalid < pairs/5 || invalid > pairs*4/5 {
		t.Errorf("the corpus is lopsided: %d of %d pairs invalid", invalid, pairs)
	}
	t.Logf("%d pairs, %d invalid", pairs, invalid)
}

func compileOracle(raw []byte) (*oracle.Schema, error) {
	doc, err := oracle.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := oracle.NewCompiler()
	c.DefaultDraft(oracle.Draft2020)
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem:///schema.json")
}

// leafLocations gathers the oracle's leaf violations as this package
// reports them: a failed anyOf, oneOf or contains is one violation, at
// the value's location, not one per branch or item.
func leafLocations(e *oracle.ValidationError, out map[string]bool) {
	switch e.ErrorKind.(type) {
	case *kind.PropertyNames:
		// The oracle's location of these is not to be trusted: it can name
		// a sibling of the object (a slice it shares), so neither side's
		// counts.
		return
	case *kind.AnyOf, *kind.OneOf, *kind.Contains, *kind.MinContains:
		out[Violation{Location: e.InstanceLocation}.Pointer()] = true
		return
	case *kind.FalseSchema:
		// unevaluatedProperties: false is one violation at the object, as
		// additionalProperties: false is in both.
		if l := e.InstanceLocation; len(l) > 0 && strings.HasSuffix(e.SchemaURL, "/unevaluatedProperties") {
			out[Violation{Location: l[:len(l)-1]}.Pointer()] = true
			return
		}
	}
	if len(e.Causes) == 0 {
		out[Violation{Location: e.InstanceLocation}.Pointer()] = true
	}
	for _, c := range e.Causes {
		leafLocations(c, out)
	}
}

// leaves are the locations of got's violations and of the oracle's leaf
// errors, each sorted and without repeats, for comparing. propertyNames
// counts on neither side (see leafLocations).
func leaves(t *testing.T, got []Violation, oerr error) (mine, theirs []string) {
	t.Helper()
	var ve *oracle.ValidationError
	if !errors.As(oerr, &ve) {
		t.Fatalf("oracle error %T: %v", oerr, oerr)
	}
	want := map[string]bool{}
	leafLocations(ve, want)
	have := map[string]bool{}
	for _, x := range got {
		if x.Keyword != "propertyNames" {
			have[x.Pointer()] = true
		}
	}
	return slices.Sorted(maps.Keys(have)), slices.Sorted(maps.Keys(want))
}

// generator makes random schemas from the keywords this package supports
// and random values that break them about half the time.
type generator struct {
	r       *rand.Rand
	draft07 bool
	defs    []string // the definitions a $ref may name
}

var (
	names    = []string{"a", "b", "c", "ab"}
	strs     = []string{"", "a", "ab", "abc", "b", "é", "日本語", "a1", "ba"}
	nums     = []string{"0", "1", "2", "1.0", "2.5", "-1", "3", "10", "0.3", "1e2", "-0.5"}
	patterns = []string{"^a", "b$", "^[a-c]*$", `\d`, "é", "^.{2}$"}
	types    = []string{"null", "boolean", "integer", "number", "string", "array", "object"}
)

func (g *generator) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *generator) num() json.Number { return json.Number(g.pick(nums)) }

func (g *generator) document() map[string]any {
	defs := map[string]any{"d0": g.schema(2, false, false)}
	g.defs = []string{"d0"}
	defs["d1"] = g.schema(2, true, false)
	g.defs = []string{"d0", "d0", "d1"}
	doc := g.schema(3, true, false)
	m, ok := doc.(map[string]any)
	if !ok {
		m = map[string]any{"allOf": []any{doc}}
	}
	if g.draft07 {
		m["$schema"] = "http://json-schema.org/draft-07/schema#"
		m["definitions"] = defs
	} else {
		m["$defs"] = defs
	}
	return m
}

// schema makes a schema; refs says it may refer to the definitions,
// inside says a value's part has been entered since the root, so that it
// may refer to the root without a cycle.
func (g *generator) schema(depth int, refs, inside bool) any {
	if g.r.IntN(12) == 0 {
		return g.r.IntN(3) > 0
	}
	m := map[string]any{}
	sub := func() any {
		if depth <= 0 {
			return map[string]any{"type": g.pick(types)}
		}
		return g.schema(depth-1, refs, inside)
	}
	part := func() any {
		if depth <= 0 {
			return map[string]any{"type": g.pick(types)}
		}
		if refs && g.r.IntN(6) == 0 {
			return map[string]any{"$ref": "#"}
		}
		return g.schema(depth-1, refs, true)
	}
	defs := "#/$defs/"
	if g.draft07 {
		defs = "#/definitions/"
	}
	for range 1 + g.r.IntN(3) {
		switch g.r.IntN(26) {
		case 0:
			if g.r.IntN(3) == 0 {
				m["type"] = []any{g.pick(types[1:]), "null"}
			} else {
				m["type"] = g.pick(types)
			}
		case 1:
			// Unique: draft-07's meta-schema wants them so.
			var e []any
			seen := map[string]bool{}
			for range 1 + g.r.IntN(3) {
				v := g.value(1)
				var b strings.Builder
				canonical(&b, v)
				if !seen[b.String()] {
					seen[b.String()] = true
					e = append(e, v)
				}
			}
			m["enum"] = e
		case 2:
			m["const"] = g.value(1)
		case 3:
			m["multipleOf"] = json.Number(g.pick([]string{"2", "3", "0.5", "0.1"}))
		case 4:
			m[g.pick([]string{"maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"})] = g.num()
		case 5:
			m[g.pick([]string{"maxLength", "minLength"})] = g.r.IntN(4)
		case 6:
			m["pattern"] = g.pick(patterns)
		case 7:
			m[g.pick([]string{"maxItems", "minItems"})] = g.r.IntN(4)
			m["uniqueItems"] = g.r.IntN(2) == 0
		case 8:
			m["items"] = part()
		case 9:
			items := []any{part(), part()}[:1+g.r.IntN(2)]
			if g.draft07 {
				m["items"] = items
				if g.r.IntN(2) == 0 {
					m["additionalItems"] = part()
				}
			} else {
				m["prefixItems"] = items
			}
		case 10:
			m["contains"] = part()
			if !g.draft07 && g.r.IntN(2) == 0 {
				m[g.pick([]string{"maxContains", "minContains"})] = g.r.IntN(3)
			}
		case 11:
			m[g.pick([]string{"maxProperties", "minProperties"})] = g.r.IntN(3)
		case 12:
			m["required"] = g.names()
		case 13:
			if g.draft07 {
				m["dependencies"] = map[string]any{g.pick(names): g.names(), g.pick(names): sub()}
			} else if g.r.IntN(2) == 0 {
				m["dependentRequired"] = map[string]any{g.pick(names): g.names()}
			} else {
				m["dependentSchemas"] = map[string]any{g.pick(names): sub()}
			}
		case 14, 15:
			props := map[string]any{}
			for _, n := range g.names() {
				props[n.(string)] = part()
			}
			m["properties"] = props
		case 16:
			m["patternProperties"] = map[string]any{g.pick(patterns): part()}
		case 17:
			if g.r.IntN(2) == 0 {
				m["additionalProperties"] = false
			} else {
				m["additionalProperties"] = part()
			}
		case 18:
			m["propertyNames"] = map[string]any{"maxLength": 1}
		case 19:
			k := g.pick([]string{"allOf", "anyOf", "oneOf"})
			m[k] = []any{sub(), sub(), sub()}[:1+g.r.IntN(3)]
		case 20:
			m["not"] = sub()
		case 21:
			m["if"] = sub()
			m["then"] = sub()
			if g.r.IntN(2) == 0 {
				m["else"] = sub()
			}
		case 24, 25:
			if g.draft07 {
				continue
			}
			k := g.pick([]string{"unevaluatedProperties", "unevaluatedItems"})
			if g.r.IntN(2) == 0 {
				m[k] = false
			} else {
				m[k] = part()
			}
		case 22, 23:
			if refs {
				m["$ref"] = defs + g.pick(g.defs)
			} else {
				m["title"] = "no ref"
			}
		}
	}
	if _, ok := m["$ref"]; ok && g.draft07 {
		// Draft-07 ignores the siblings of $ref; the oracle still applies
		// type, const and enum beside it.
		return map[string]any{"$ref": m["$ref"]}
	}
	return m
}

func (g *generator) names() []any {
	var out []any
	for _, n := range names {
		if g.r.IntN(3) == 0 {
			out = append(out, n)
		}
	}
	if out == nil {
		out = []any{g.pick(names)}
	}
	return out
}

// value makes a random JSON value, nested at most depth levels.
func (g *generator) value(depth int) any {
	k := g.r.IntN(7)
	if depth <= 0 && k >= 5 {
		k = g.r.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2, 3:
		return g.num()
	case 4:
		return g.pick(strs)
	case 5:
		var a []any
		for range g.r.IntN(4) {
			a = append(a, g.value(depth-1))
		}
		if a == nil {
			a = []any{}
		}
		return a
	}
	o := map[string]any{}
	for range g.r.IntN(4) {
		o[g.pick(names)] = g.value(depth - 1)
	}
	return o
}

// TestGeneratorShape keeps the generator honest: every schema it makes
// compiles in both validators (else the comparison would skip it).
func TestGeneratorShape(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		g := &generator{r: r, draft07: i%2 == 0}
		raw, _ := json.Marshal(g.document())
		if _, err := Compile(raw); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
		if _, err := compileOracle(raw); err != nil {
			t.Errorf("oracle: %s: %v", raw, fmt.Sprint(err))
		}
	}
}

// TestDifferentialUnevaluated is the comparison over schemas made for
// unevaluatedProperties and unevaluatedItems: in-place applicators whose
// branches evaluate some properties or items, and the keyword beside them.
func TestDifferentialUnevaluated(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2019))
	g := &generator{r: r}
	mismatches := 0
	for range 1500 {
		raw, _ := json.Marshal(g.unevaluated(2))
		mine, err := Compile(raw)
		theirs, theirErr := compileOracle(raw)
		if err != nil || theirErr != nil {
			t.Fatalf("%s: %v / %v", raw, err, theirErr)
		}
		for range 4 {
			inst, _ := json.Marshal(g.value(2))
			v, _ := Decode(inst)
			ov, _ := oracle.UnmarshalJSON(bytes.NewReader(inst))
			got := mine.Validate(v)
			oerr := theirs.Validate(ov)
			if (len(got) == 0) != (oerr == nil) {
				t.Errorf("verdicts differ on %s with %s:\n mine   %+v\n theirs %v", raw, inst, got, oerr)
				mismatches++
			} else if oerr != nil {
				if mine, theirs := leaves(t, got, oerr); !slices.Equal(mine, theirs) {
					t.Errorf("leaf locations differ on %s with %s:\n mine   %v\n theirs %v", raw, inst, mine, theirs)
					mismatches++
				}
			}
			if mismatches > 10 {
				t.FailNow()
			}
		}
	}
}

// unevaluated makes a schema whose in-place branches evaluate parts, and
// unevaluatedProperties or unevaluatedItems beside them.
func (g *generator) unevaluated(depth int) map[string]any {
	m := map[string]any{}
	branch := func() any {
		if depth > 0 && g.r.IntN(4) == 0 {
			return g.unevaluated(depth - 1)
		}
		b := map[string]any{}
		for range 1 + g.r.IntN(2) {
			switch g.r.IntN(7) {
			case 0:
				props := map[string]any{}
				for _, n := range g.names() {
					props[n.(string)] = map[string]any{"type": g.pick(types)}
				}
				b["properties"] = props
			case 1:
				b["required"] = g.names()
			case 2:
				b["patternProperties"] = map[string]any{g.pick([]string{"^a", "b$"}): true}
			case 3:
				b["prefixItems"] = []any{true, map[string]any{"type": g.pick(types)}}[:1+g.r.IntN(2)]
			case 4:
				b["contains"] = map[string]any{"type": g.pick(types)}
			case 5:
				b["items"] = map[string]any{"type": g.pick(types)}
			case 6:
				b["unevaluatedProperties"] = g.r.IntN(2) == 0
			}
		}
		return b
	}
	for range 1 + g.r.IntN(2) {
		switch g.r.IntN(6) {
		case 0, 1:
			k := g.pick([]string{"allOf", "anyOf", "oneOf"})
			m[k] = []any{branch(), branch(), branch()}[:1+g.r.IntN(3)]
		case 2:
			m["if"], m["then"] = branch(), branch()
			if g.r.IntN(2) == 0 {
				m["else"] = branch()
			}
		case 3:
			m["dependentSchemas"] = map[string]any{g.pick(names): branch()}
		case 4:
			if depth < 2 {
				continue // the root's $defs only
			}
			m["$ref"] = "#/$defs/base"
			m["$defs"] = map[string]any{"base": branch()}
		case 5:
			m["not"] = branch()
		}
	}
	for _, k := range []string{"unevaluatedProperties", "unevaluatedItems"} {
		switch g.r.IntN(3) {
		case 0:
			m[k] = false
		case 1:
			m[k] = map[string]any{"type": g.pick(types)}
		}
	}
	if g.r.IntN(3) == 0 {
		m["properties"] = map[string]any{g.pick(names): true}
	}
	return m
}

// dynamicSchemas use $dynamicRef and $recursiveRef the ways the spec
// shows: a tree extended to be strict or typed, and a list whose items
// the outermost resource chooses.
var dynamicSchemas = []string{
	strictTree,
	strictTree2019,
	`{"$id":"https://x.test/typed","$dynamicAnchor":"node","$ref":"tree","properties":{"data":{"type":"integer"}},
	  "$defs":{"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`,
	`{"$id":"https://x.test/tree","$dynamicAnchor":"node","type":"object","properties":{"data":{"type":["integer","string"]},"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
	`{"$id":"https://x.test/static","$anchor":"node","type":"object","properties":{"children":{"items":{"$dynamicRef":"#node"}}},"unevaluatedProperties":{"type":"array"}}`,
	`{"$id":"https://x.test/list-of-strings","$ref":"list","$defs":{"string-items":{"$dynamicAnchor":"items","type":"string"},
	  "list":{"$id":"list","type":"array","items":{"$dynamicRef":"#items"},"$defs":{"items":{"$dynamicAnchor":"items"}}}}}`,
	`{"$id":"https://x.test/list","type":"array","items":{"$dynamicRef":"#items"},"$defs":{"items":{"$dynamicAnchor":"items","type":"integer"}}}`,
}

// TestDifferentialDynamic compares the dynamic references over random
// trees and lists.
func TestDifferentialDynamic(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2021))
	g := &generator{r: r}
	var tree func(depth int) any
	tree = func(depth int) any {
		if depth == 0 || r.IntN(4) == 0 {
			return g.value(1)
		}
		o := map[string]any{}
		for _, k := range []string{"data", "children", "daat"} {
			switch {
			case k == "children" && r.IntN(3) > 0:
				var kids []any
				for range r.IntN(3) {
					kids = append(kids, tree(depth-1))
				}
				o[k] = append([]any{}, kids...)
			case k != "children" && r.IntN(3) == 0:
				o[k] = g.value(0)
			}
		}
		return o
	}
	for _, schema := range dynamicSchemas {
		mine, err := Compile([]byte(schema))
		if err != nil {
			t.Fatalf("%s: %v", schema, err)
		}
		theirs, err := compileOracle([]byte(schema))
		if err != nil {
			t.Fatalf("oracle: %s: %v", schema, err)
		}
		invalid := 0
		for i := range 300 {
			var inst []byte
			if i%3 == 0 {
				inst, _ = json.Marshal(g.value(2))
			} else {
				inst, _ = json.Marshal(tree(4))
			}
			v, _ := Decode(inst)
			ov, _ := oracle.UnmarshalJSON(bytes.NewReader(inst))
			got := mine.Validate(v)
			oerr := theirs.Validate(ov)
			if (len(got) == 0) != (oerr == nil) {
				t.Fatalf("verdicts differ on %s with %s:\n mine   %+v\n theirs %v", schema, inst, got, oerr)
			}
			if oerr == nil {
				continue
			}
			invalid++
			if mine, theirs := leaves(t, got, oerr); !slices.Equal(mine, theirs) {
				t.Fatalf("leaf locations differ on %s with %s:\n mine   %v\n theirs %v", schema, inst, mine, theirs)
			}
		}
		if invalid == 0 || invalid == 300 {
			t.Errorf("%s: %d of 300 invalid", schema, invalid)
		}
	}
}
