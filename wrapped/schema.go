package wrapped

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/shelter-sh/shelter/internal/refusal"
)

// verbSchema builds a verb's JSON Schema, properties in declared order:
// flags, then positionals, then args.
func verbSchema(v *Verb) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object"`)
	if v.about != "" {
		b.WriteString(`,"description":`)
		writeJSON(&b, strings.TrimSpace(v.about))
	}
	b.WriteString(`,"properties":{`)
	var required []string
	n := 0
	prop := func(name string) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		writeJSON(&b, name)
		b.WriteByte(':')
	}
	for _, f := range v.flags {
		prop(f.prop)
		item := `{"type":"string"`
		switch {
		case f.typ == TypeSwitch:
			item = `{"type":"boolean"`
		case f.typ == TypeInt:
			item = `{"type":"integer"`
		case len(f.choices) > 0:
			var e bytes.Buffer
			writeJSON(&e, f.choices)
			item = `{"type":"string","enum":` + e.String()
		}
		if f.repeatable {
			b.WriteString(`{"type":"array","items":` + item + `}`)
		} else {
			b.WriteString(item)
		}
		writeDescription(&b, f.about)
		b.WriteByte('}')
		if f.required {
			required = append(required, f.prop)
		}
	}
	for _, a := range v.args {
		prop(a.name)
		if a.many {
			b.WriteString(`{"type":"array","items":{"type":"string"}`)
			if a.required {
				b.WriteString(`,"minItems":1`)
			}
		} else {
			b.WriteString(`{"type":"string"`)
		}
		about := a.about
		if a.under != "" {
			about = strings.TrimSpace(about + " A path under " + a.underText() + ".")
		}
		writeDescription(&b, about)
		b.WriteByte('}')
		if a.required {
			required = append(required, a.name)
		}
	}
	if v.tail != TailDeny {
		prop("args")
		b.WriteString(`{"type":"array","items":{"type":"string"}`)
		if v.tail == TailAfterDashDash {
			writeDescription(&b, "Extra words for the program, rendered after --.")
		} else {
			writeDescription(&b, "Extra words for the program, rendered as written.")
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":`)
		writeJSON(&b, required)
	}
	b.WriteString(`,"additionalProperties":false}`)
	return b.Bytes()
}

// commandSchema describes every verb: exactly one property, the verb's name
// (the root under the command's name), holding that verb's schema.
func commandSchema(c *Command) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object"`)
	if c.about != "" {
		b.WriteString(`,"description":`)
		writeJSON(&b, strings.TrimSpace(c.about))
	}
	b.WriteString(`,"properties":{`)
	for i, v := range c.Verbs() {
		if i > 0 {
			b.WriteByte(',')
		}
		name := v.name
		if v.root {
			name = c.name
		}
		writeJSON(&b, name)
		b.WriteByte(':')
		b.Write(v.schema)
	}
	b.WriteString(`},"minProperties":1,"maxProperties":1,"additionalProperties":false}`)
	return b.Bytes()
}

func writeDescription(b *bytes.Buffer, about string) {
	if about = strings.TrimSpace(about); about != "" {
		b.WriteString(`,"description":`)
		writeJSON(b, about)
	}
}

func writeJSON(b *bytes.Buffer, v any) {
	data, _ := json.Marshal(v)
	b.Write(data)
}

// PlanJSON renders a JSON call of a verb ("" or the command's name for
// the root) through the same parser and checks as a shell call: the input
// object becomes words, flags first in declared order, then positionals,
// then the extra words of "args" (after a -- for the after-dash-dash
// tail). A positional value that starts with - is refused, as is any
// property the verb's schema does not name or a value of the wrong type.
func (c *Command) PlanJSON(verb string, input json.RawMessage, dir string) (*Plan, error) {
	v, words, err := c.jsonWords(verb, input)
	if err != nil {
		return nil, err
	}
	p := call{cmd: c, args: words, dir: dir, verb: v}
	plan, err := p.run()
	if err == nil && plan.Help {
		return nil, &InputError{Scope: v.scope, Msg: "a JSON call cannot ask for help", Allowed: []string{"the schema (tools --json)"}}
	}
	return plan, err
}

// WordsJSON renders a JSON call of a verb as PlanJSON does, into the
// words a shell call would give after the command's name: the verb's
// name (none for the root), then the input's words. It refuses what
// PlanJSON refuses about the JSON itself (an unknown property, a value of
// the wrong type); the words are then checked as any shell call is.
func (c *Command) WordsJSON(verb string, input json.RawMessage) ([]string, error) {
	v, words, err := c.jsonWords(verb, input)
	if err != nil {
		return nil, err
	}
	if v.IsRoot() {
		return words, nil
	}
	return append(strings.Fields(v.Name()), words...), nil
}

// jsonWords is the verb a JSON call names and the words its input
// renders to.
func (c *Command) jsonWords(verb string, input json.RawMessage) (*Verb, []string, error) {
	v, ok := c.Verb(verb)
	if !ok && verb == c.name {
		v, ok = c.root, c.root != nil
	}
	if !ok {
		return nil, nil, &UnknownVerbError{Command: c.name, Verb: verb, Allowed: c.verbNames()}
	}
	obj := map[string]json.RawMessage{}
	if trimmed := bytes.TrimSpace(input); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' || json.Unmarshal(trimmed, &obj) != nil {
			return nil, nil, &InputError{Scope: v.scope, Msg: "input that is not a JSON object", Allowed: []string{"a JSON object"}}
		}
	}
	known := v.properties()
	for k := range obj {
		if !slices.Contains(known, k) {
			return nil, nil, &InputError{Scope: v.scope, Msg: "unknown property " + refusal.Quote(k), Allowed: known}
		}
	}
	var words []string
	for _, f := range v.flags {
		raw, ok := obj[f.prop]
		if !ok {
			continue
		}
		values := []json.RawMessage{raw}
		if f.repeatable {
			if err := json.Unmarshal(raw, &values); err != nil {
				return nil, nil, &InputError{Scope: v.scope, Msg: refusal.Quote(f.prop) + " is not an array", Allowed: []string{"an array"}}
			}
		}
		for _, r := range values {
			w, err := jsonValue(f, r)
			if err != nil {
				return nil, nil, &InputError{Scope: v.scope, Msg: "invalid " + f.prop + " " + refusal.Quote(string(r)), Allowed: []string{jsonKind(f)}}
			}
			switch {
			case f.typ == TypeSwitch && w == "true":
				words = append(words, f.canonical)
			case f.typ == TypeSwitch:
			case isShort(f.canonical):
				words = append(words, f.canonical, w)
			default:
				words = append(words, f.canonical+"="+w)
			}
		}
	}
	missing := ""
	for _, a := range v.args {
		raw, ok := obj[a.name]
		if !ok {
			if missing == "" {
				missing = a.name
			}
			continue
		}
		var values []string
		if a.many {
			if json.Unmarshal(raw, &values) != nil {
				return nil, nil, &InputError{Scope: v.scope, Msg: refusal.Quote(a.name) + " is not an array of strings", Allowed: []string{"an array of strings"}}
			}
		} else {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return nil, nil, &InputError{Scope: v.scope, Msg: refusal.Quote(a.name) + " is not a string", Allowed: []string{"a string"}}
			}
			values = []string{s}
		}
		if missing != "" && len(values) > 0 {
			return nil, nil, &InputError{Scope: v.scope, Msg: refusal.Quote(a.name) + " given without " + refusal.Quote(missing) + " before it", Allowed: []string{missing + " before " + a.name}}
		}
		for _, s := range values {
			if strings.HasPrefix(s, "-") {
				return nil, nil, &DashValueError{Scope: v.scope, Name: a.name, Value: s}
			}
		}
		words = append(words, values...)
	}
	if raw, ok := obj["args"]; ok && v.tail != TailDeny {
		var extra []string
		if json.Unmarshal(raw, &extra) != nil {
			return nil, nil, &InputError{Scope: v.scope, Msg: "'args' is not an array of strings", Allowed: []string{"an array of strings"}}
		}
		if v.tail == TailAfterDashDash && len(extra) > 0 {
			words = append(words, "--")
		}
		words = append(words, extra...)
	}
	return v, words, nil
}

// properties are the names of the verb's schema properties.
func (v *Verb) properties() []string {
	var out []string
	for _, f := range v.flags {
		out = append(out, f.prop)
	}
	for _, a := range v.args {
		out = append(out, a.name)
	}
	if v.tail != TailDeny {
		out = append(out, "args")
	}
	return out
}

// jsonValue turns one JSON value of a flag into its word: "true"/"false"
// for switches, the decimal integer, or the string; errNotKind when raw is
// not of the flag's kind.
func jsonValue(f *Flag, raw json.RawMessage) (string, error) {
	switch f.typ {
	case TypeSwitch:
		var on bool
		if json.Unmarshal(raw, &on) != nil {
			return "", errNotKind
		}
		return strconv.FormatBool(on), nil
	case TypeInt:
		var n json.Number
		if len(raw) > 0 && raw[0] == '"' {
			return "", errNotKind
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if d.Decode(&n) != nil {
			return "", errNotKind
		}
		if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
			return "", errNotKind
		}
		return n.String(), nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", errNotKind
	}
	return s, nil
}

// errNotKind is a JSON value not of its flag's kind (jsonKind).
var errNotKind = errors.New("not of the flag's kind")

// jsonKind is what a flag's JSON value is, for a refusal.
func jsonKind(f *Flag) string {
	switch f.typ {
	case TypeSwitch:
		return "a boolean"
	case TypeInt:
		return "an integer"
	}
	return "a string"
}
