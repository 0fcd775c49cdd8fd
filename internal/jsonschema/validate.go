package jsonschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth bounds how deep into a value validation goes: a part nested
// deeper is one violation (keyword "depth"), not a crash.
const MaxDepth = 1000

// maxSteps bounds the schemas applied in one validation: references can
// share subschemas so that a small document applies one exponentially
// often. Past it validation stops with one violation (keyword "steps").
const maxSteps = 1_000_000

// Violation is one way a value breaks a schema.
type Violation struct {
	// Location is the instance location: the JSON pointer tokens from the
	// value's root to the part at fault, none for the root itself.
	Location []string
	// Keyword is the keyword that failed ("type", "required", "anyOf"…);
	// "false" for the false schema; "depth" and "steps" for the bounds
	// (see the package doc).
	Keyword string
	// Message explains it: "got string, want integer",
	// "minimum: got 0, want 1".
	Message string
	// Names are, for required, dependentRequired and a false
	// additionalProperties or unevaluatedProperties, the properties
	// missing or not allowed, sorted.
	Names []string
}

// Pointer is the violation's location as a JSON pointer ("/a/0"; "" for
// the root).
func (v Violation) Pointer() string {
	var b strings.Builder
	for _, t := range v.Location {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// Validate checks a decoded value (see [Decode]) against the schema and
// returns every violation, nil when the value is valid. A failed anyOf or
// oneOf is one violation, not one per branch; so is a failed contains. A
// value whose type, enum or const fails gets only that violation at its
// location.
//
// The violations are in the order of their locations (token by token),
// and at one location in the order the keywords were applied.
func (s *Schema) Validate(v any) []Violation {
	vd := &validator{dynamic: s.dynamic, loc: make([]string, 0, 8)}
	vd.apply(s.root, v, nil)
	// An object's properties are visited in map order; the sort makes the
	// result the same on every run.
	slices.SortStableFunc(vd.out, func(a, b Violation) int { return slices.Compare(a.Location, b.Location) })
	return vd.out
}

// Valid reports whether a decoded value is valid; it stops at the first
// violation.
func (s *Schema) Valid(v any) bool {
	vd := &validator{quick: true, dynamic: s.dynamic, loc: make([]string, 0, 8)}
	vd.apply(s.root, v, nil)
	return len(vd.out) == 0
}

type validator struct {
	out   []Violation
	loc   []string
	quick bool // only validity is wanted: stop at the first violation
	steps int
	// scope is the dynamic scope: the resources entered, outermost
	// first. dynamic is where a dynamic reference may land.
	scope   []string
	dynamic map[string]*node
}

func (vd *validator) add(keyword, message string, names ...string) {
	vd.out = append(vd.out, Violation{Location: append([]string(nil), vd.loc...), Keyword: keyword, Message: message, Names: names})
}

// stop says whether there is no point going on: validity alone is
// wanted and known, or the step budget is spent.
func (vd *validator) stop() bool {
	return vd.quick && len(vd.out) > 0 || vd.steps > maxSteps
}

// valid applies n to v on the side and reports whether it passed; when
// it did, what it evaluated counts in ev (if ev is not nil).
func (vd *validator) valid(n *node, v any, ev *evaluated) bool {
	sub := &validator{loc: vd.loc, quick: true, steps: vd.steps, scope: vd.scope, dynamic: vd.dynamic}
	var own *evaluated
	if ev != nil {
		own = &evaluated{}
	}
	sub.apply(n, v, own)
	vd.steps = sub.steps
	if sub.steps > maxSteps {
		vd.out = append(vd.out, sub.out...)
	}
	if len(sub.out) == 0 {
		ev.merge(own)
		return true
	}
	return false
}

// inPlace applies n to the value itself; what it evaluated counts in ev
// when it passed.
func (vd *validator) inPlace(n *node, v any, ev *evaluated) {
	if ev == nil {
		vd.apply(n, v, nil)
		return
	}
	own := &evaluated{}
	before := len(vd.out)
	vd.apply(n, v, own)
	if len(vd.out) == before {
		ev.merge(own)
	}
}

// child applies n to a part of the value.
func (vd *validator) child(n *node, v any, token string) {
	vd.loc = append(vd.loc, token)
	if len(vd.loc) > MaxDepth {
		vd.add("depth", fmt.Sprintf("nested deeper than %d levels", MaxDepth))
	} else {
		vd.apply(n, v, nil)
	}
	vd.loc = vd.loc[:len(vd.loc)-1]
}

// apply applies n to v. ev, when not nil, gathers the properties and
// items n evaluated, for an unevaluatedProperties or unevaluatedItems
// around it.
func (vd *validator) apply(n *node, v any, ev *evaluated) {
	if vd.dynamic == nil || len(vd.scope) > 0 && vd.scope[len(vd.scope)-1] == n.resource {
		vd.applyHere(n, v, ev)
		return
	}
	vd.scope = append(vd.scope, n.resource)
	vd.applyHere(n, v, ev)
	vd.scope = vd.scope[:len(vd.scope)-1]
}

// applyHere is apply once the dynamic scope holds n's resource.
func (vd *validator) applyHere(n *node, v any, ev *evaluated) {
	vd.steps++
	if vd.steps > maxSteps {
		if vd.steps == maxSteps+1 {
			vd.add("steps", fmt.Sprintf("validation gave up after applying %d schemas", maxSteps))
		}
		return
	}
	if n.always != nil {
		if !*n.always {
			vd.add("false", "not allowed")
		}
		return
	}
	if n.types != nil && !vd.typeOK(n, v) {
		return
	}
	if n.hasConst && !equal(v, n.constant) {
		vd.add("const", constMessage(n.constant))
		return
	}
	if n.hasEnum && !inEnum(v, n.enum) {
		vd.add("enum", enumMessage(n.enum))
		return
	}
	outer := ev
	if n.unevaluatedProperties != nil || n.unevaluatedItems != nil {
		ev = &evaluated{}
	}
	if n.ref != nil {
		vd.inPlace(n.ref, v, ev)
		if vd.stop() {
			return
		}
	}
	if n.dynamicRef != nil {
		vd.inPlace(vd.dynamicTarget(n), v, ev)
		if vd.stop() {
			return
		}
	}
	switch v := v.(type) {
	case map[string]any:
		vd.object(n, v, ev)
	case []any:
		vd.array(n, v, ev)
	case string:
		vd.string(n, v)
	case json.Number:
		vd.number(n, v)
	}
	if vd.stop() {
		return
	}
	vd.compose(n, v, ev)
	if ev != outer && !vd.stop() {
		vd.unevaluated(n, v, ev)
		outer.merge(ev)
	}
}

func (vd *validator) typeOK(n *node, v any) bool {
	got := typeName(v)
	for _, t := range n.types {
		if t == got {
			return true
		}
		if t == "integer" && got == "number" {
			ok, err := isInteger(v.(json.Number))
			if err != nil {
				vd.add("type", err.Error())
				return false
			}
			if ok {
				return true
			}
		}
	}
	vd.add("type", fmt.Sprintf("got %s, want %s", got, strings.Join(n.types, " or ")))
	return false
}

func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		if equal(v, e) {
			return true
		}
	}
	return false
}

func constMessage(want any) string {
	switch want.(type) {
	case []any, map[string]any:
		return "value must equal const's " + display(want)
	}
	return "value must be " + display(want)
}

// maxShown is how many of an enum's values a message lists.
const maxShown = 20

func enumMessage(enum []any) string {
	if len(enum) == 0 {
		return "no value is allowed: enum is empty"
	}
	want := make([]string, len(enum))
	for i, e := range enum {
		switch e.(type) {
		case []any, map[string]any:
			return fmt.Sprintf("value must be one of enum's %d values", len(enum))
		}
		want[i] = display(e)
	}
	switch {
	case len(want) == 1:
		return "value must be " + want[0]
	case len(want) > maxShown:
		return fmt.Sprintf("value must be one of %s, … (%d values)", strings.Join(want[:maxShown], ", "), len(want))
	}
	return "value must be one of " + strings.Join(want, ", ")
}

func (vd *validator) number(n *node, v json.Number) {
	if n.multipleOf == nil && n.maximum == nil && n.minimum == nil && n.exclusiveMaximum == nil && n.exclusiveMinimum == nil {
		return
	}
	x, err := parseNumber(string(v))
	if err != nil {
		vd.add("type", err.Error())
		return
	}
	if m := n.multipleOf; m != nil && !x.multipleOf(*m) {
		vd.add("multipleOf", fmt.Sprintf("multipleOf: got %s, want a multiple of %s", v, m.text))
	}
	if m := n.maximum; m != nil && x.cmp(*m) > 0 {
		vd.add("maximum", fmt.Sprintf("maximum: got %s, want %s", v, m.text))
	}
	if m := n.exclusiveMaximum; m != nil && x.cmp(*m) >= 0 {
		vd.add("exclusiveMaximum", fmt.Sprintf("exclusiveMaximum: got %s, want less than %s", v, m.text))
	}
	if m := n.minimum; m != nil && x.cmp(*m) < 0 {
		vd.add("minimum", fmt.Sprintf("minimum: got %s, want %s", v, m.text))
	}
	if m := n.exclusiveMinimum; m != nil && x.cmp(*m) <= 0 {
		vd.add("exclusiveMinimum", fmt.Sprintf("exclusiveMinimum: got %s, want more than %s", v, m.text))
	}
}

func (vd *validator) string(n *node, v string) {
	if n.maxLength >= 0 || n.minLength >= 0 {
		l := utf8.RuneCountInString(v)
		if n.maxLength >= 0 && l > n.maxLength {
			vd.add("maxLength", fmt.Sprintf("maxLength: got %d, want %d", l, n.maxLength))
		}
		if n.minLength >= 0 && l < n.minLength {
			vd.add("minLength", fmt.Sprintf("minLength: got %d, want %d", l, n.minLength))
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(v) {
		vd.add("pattern", fmt.Sprintf("%s does not match pattern %s", quote(v), quote(n.pattern.String())))
	}
}

func (vd *validator) array(n *node, v []any, ev *evaluated) {
	if n.maxItems >= 0 && len(v) > n.maxItems {
		vd.add("maxItems", fmt.Sprintf("maxItems: got %d, want %d", len(v), n.maxItems))
	}
	if n.minItems >= 0 && len(v) < n.minItems {
		vd.add("minItems", fmt.Sprintf("minItems: got %d, want %d", len(v), n.minItems))
	}
	if n.uniqueItems && len(v) > 1 {
		seen := make(map[string]int, len(v))
		var b strings.Builder
		for i, e := range v {
			b.Reset()
			canonical(&b, e)
			if j, ok := seen[b.String()]; ok {
				vd.add("uniqueItems", fmt.Sprintf("items at %d and %d are equal", j, i))
				break
			}
			seen[b.String()] = i
		}
	}
	if ev != nil {
		ev.items = max(ev.items, min(len(n.prefixItems), len(v)))
		ev.allItems = ev.allItems || n.items != nil
	}
	for i, e := range v {
		if vd.stop() {
			return
		}
		switch {
		case i < len(n.prefixItems):
			vd.child(n.prefixItems[i], e, strconv.Itoa(i))
		case n.items != nil:
			vd.child(n.items, e, strconv.Itoa(i))
		}
	}
	if n.contains == nil {
		return
	}
	matched := 0
	for i, e := range v {
		if vd.stop() {
			return
		}
		vd.loc = append(vd.loc, strconv.Itoa(i))
		if vd.valid(n.contains, e, nil) {
			matched++
			if ev != nil && n.containsEvaluates {
				ev.item(i)
			}
		}
		vd.loc = vd.loc[:len(vd.loc)-1]
	}
	switch {
	case n.minContains == 0:
	case n.minContains > 0 && matched < n.minContains:
		vd.add("minContains", fmt.Sprintf("minContains: %d items match contains, want %d", matched, n.minContains))
	case n.minContains < 0 && matched == 0:
		vd.add("contains", "no item matches contains")
	}
	if n.maxContains >= 0 && matched > n.maxContains {
		vd.add("maxContains", fmt.Sprintf("maxContains: %d items match contains, want %d", matched, n.maxContains))
	}
}

func (vd *validator) object(n *node, v map[string]any, ev *evaluated) {
	if n.maxProperties >= 0 && len(v) > n.maxProperties {
		vd.add("maxProperties", fmt.Sprintf("maxProperties: got %d, want %d", len(v), n.maxProperties))
	}
	if n.minProperties >= 0 && len(v) < n.minProperties {
		vd.add("minProperties", fmt.Sprintf("minProperties: got %d, want %d", len(v), n.minProperties))
	}
	if missing := missingOf(v, n.required); missing != nil {
		vd.add("required", missingMessage(missing), missing...)
	}
	if n.dependentRequired != nil {
		for _, name := range sortedKeys(n.dependentRequired) {
			if _, ok := v[name]; !ok {
				continue
			}
			if missing := missingOf(v, n.dependentRequired[name]); missing != nil {
				vd.add("dependentRequired", fmt.Sprintf("%s, required when %s is there", missingMessage(missing), quote(name)), missing...)
			}
		}
	}
	if vd.stop() {
		return
	}
	if n.patternProperties == nil && n.additionalProperties == nil && n.propertyNames == nil {
		for _, name := range n.propertyOrder {
			if e, ok := v[name]; ok {
				ev.prop(name)
				vd.child(n.properties[name], e, name)
				if vd.stop() {
					return
				}
			}
		}
		return
	}
	var extra, badNames []string
	for name, e := range v {
		known := false
		if s, ok := n.properties[name]; ok {
			known = true
			vd.child(s, e, name)
		}
		for _, p := range n.patternProperties {
			if p.re.MatchString(name) {
				known = true
				vd.child(p.schema, e, name)
			}
		}
		if known || n.additionalProperties != nil {
			ev.prop(name)
		}
		if !known && n.additionalProperties != nil {
			if a := n.additionalProperties.always; a != nil && !*a {
				extra = append(extra, name)
			} else {
				vd.child(n.additionalProperties, e, name)
			}
		}
		if n.propertyNames != nil && !vd.valid(n.propertyNames, name, nil) {
			badNames = append(badNames, name)
		}
		if vd.stop() {
			return
		}
	}
	slices.Sort(badNames)
	for _, name := range badNames {
		vd.add("propertyNames", fmt.Sprintf("property name %s is not allowed by propertyNames", quote(name)))
	}
	if extra != nil {
		slices.Sort(extra)
		vd.add("additionalProperties", fmt.Sprintf("additional properties %s not allowed", quoteAll(extra)), extra...)
	}
}

// missingOf lists the names obj lacks, sorted; nil when it has them all.
func missingOf(obj map[string]any, names []string) []string {
	var missing []string
	for _, name := range names {
		if _, ok := obj[name]; !ok {
			missing = append(missing, name)
		}
	}
	if missing != nil {
		missing = sortedKeys(setOf(missing))
	}
	return missing
}

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func missingMessage(missing []string) string {
	if len(missing) == 1 {
		return "missing property " + quote(missing[0])
	}
	return "missing properties " + quoteAll(missing)
}

// compose applies the keywords that combine schemas on the value itself.
func (vd *validator) compose(n *node, v any, ev *evaluated) {
	for _, name := range sortedKeys(n.dependentSchemas) {
		if obj, ok := v.(map[string]any); ok {
			if _, ok := obj[name]; ok {
				vd.inPlace(n.dependentSchemas[name], v, ev)
			}
		}
	}
	for _, s := range n.allOf {
		if vd.stop() {
			return
		}
		vd.inPlace(s, v, ev)
	}
	if n.anyOf != nil {
		// Every branch that passes counts for unevaluated*: with ev, all
		// are tried.
		ok := false
		for _, s := range n.anyOf {
			if vd.valid(s, v, ev) {
				ok = true
				if ev == nil {
					break
				}
			}
		}
		if !ok {
			vd.add("anyOf", fmt.Sprintf("matches none of anyOf's %d schemas", len(n.anyOf)))
		}
	}
	if n.oneOf != nil {
		var matched []string
		for i, s := range n.oneOf {
			if vd.valid(s, v, ev) {
				matched = append(matched, strconv.Itoa(i))
				if len(matched) == 2 {
					break
				}
			}
		}
		switch len(matched) {
		case 0:
			vd.add("oneOf", fmt.Sprintf("matches none of oneOf's %d schemas", len(n.oneOf)))
		case 2:
			vd.add("oneOf", fmt.Sprintf("matches oneOf's schemas %s and %s, want exactly one", matched[0], matched[1]))
		}
	}
	// A not that fails lets what its schema evaluated count: the not is
	// the violation, not its echo in unevaluatedProperties.
	if n.not != nil && vd.valid(n.not, v, ev) {
		vd.add("not", "must not match the schema under not")
	}
	if n.ifSchema != nil && (n.then != nil || n.elseSchema != nil) {
		if vd.valid(n.ifSchema, v, ev) {
			if n.then != nil {
				vd.inPlace(n.then, v, ev)
			}
		} else if n.elseSchema != nil {
			vd.inPlace(n.elseSchema, v, ev)
		}
	}
}

// dynamicTarget is where n's $dynamicRef or $recursiveRef lands: the
// outermost resource in the dynamic scope that defines its anchor, or
// its static target.
func (vd *validator) dynamicTarget(n *node) *node {
	if !n.dynamic {
		return n.dynamicRef
	}
	for _, r := range vd.scope {
		if t, ok := vd.dynamic[r+"#"+n.dynamicName]; ok {
			return t
		}
	}
	return n.dynamicRef
}
