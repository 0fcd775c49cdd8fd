package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/internal/refusal"
)

// MaxStdin bounds the JSON input a tool reads from stdin.
const MaxStdin = 16 << 20

// Flags maps the words of a shell call onto a tool's input schema: each
// top-level property is a flag (`--unit nginx`, `--unit=nginx`; a
// property max_lines is also `--max-lines`).
//
//   - boolean: `--follow` is true; `--follow=true`, `--follow=false`; any
//     other value is refused.
//   - integer: base-10 digits; `1.9` is refused, never truncated.
//   - number: a JSON number.
//   - string: the word as typed.
//   - array: repeat the flag (`--tags a --tags b`) or separate values with
//     commas (`--tags a,b`); when the items are objects or arrays each
//     word is JSON (one item, or a JSON array of items). When the items
//     have no declared type, a word that is a JSON object or array is
//     read as JSON the same way, any other word by commas.
//   - object: one JSON word.
//   - a property with several types, or none, takes the first reading of
//     the word its types allow: null, boolean, integer, number, JSON
//     object or array, string.
//
// `--json '{…}'` gives the whole input; so does JSON on stdin when no word
// is given. `--help` asks for help ([ErrHelp]). A word the schema does not
// name is refused, never dropped; a key of JSON input the schema does not
// name is refused too unless the schema admits other keys
// (additionalProperties, patternProperties, composition with allOf…).
//
// A Flags is immutable and safe for concurrent use.
type Flags struct {
	tool    string
	props   map[string]*property // by property name
	set     *argv.Set            // the flags' grammar (argv.Exact), help and pool
	byArg   map[*argv.Flag]*property
	json    *argv.Flag // --json
	allowed []string   // the flags, sorted
	names   []string   // the property names, sorted
	closed  bool       // JSON input may hold only named properties
}

// NewFlags reads the properties of an input schema. The schema must be a
// JSON object; if it has a type, it must be "object". NewFlags does not
// compile the schema: see [Func] and [Exec] for tools, which do.
func NewFlags(tool string, schema json.RawMessage) (*Flags, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = emptyInput
	}
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil || root == nil {
		return nil, fmt.Errorf("input schema is not a JSON object")
	}
	if t, ok := root["type"]; ok && !typeIsObject(t) {
		return nil, fmt.Errorf("input schema must describe an object (type: object), not %s", compactJSON(t))
	}
	f := &Flags{
		tool:   tool,
		props:  make(map[string]*property),
		byArg:  make(map[*argv.Flag]*property),
		closed: true,
	}
	for _, kw := range []string{"patternProperties", "allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "dependentSchemas"} {
		if _, ok := root[kw]; ok {
			f.closed = false
		}
	}
	for _, kw := range []string{"additionalProperties", "unevaluatedProperties"} {
		if v, ok := root[kw]; ok && v != false {
			f.closed = false
		}
	}
	required := make(map[string]bool)
	if list, ok := root["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	props, _ := root["properties"].(map[string]any)
	for name, raw := range props {
		ps, _ := raw.(map[string]any)
		p := &property{name: name, required: required[name]}
		p.read(root, ps)
		f.props[name] = p
		f.names = append(f.names, name)
	}
	sort.Strings(f.names)
	// Exact names first, so that a property spelled "max-lines" beside
	// one spelled "max_lines" keeps its own flag.
	spelling := make(map[string]*property) // by flag spelling, dashes included
	for _, name := range f.names {
		if flaggable(name) {
			spelling["--"+name] = f.props[name]
		}
	}
	for _, name := range f.names {
		if !flaggable(name) {
			continue
		}
		for _, alt := range []string{strings.ReplaceAll(name, "_", "-"), strings.ReplaceAll(name, "-", "_")} {
			if _, taken := spelling["--"+alt]; !taken {
				spelling["--"+alt] = f.props[name]
			}
		}
	}
	for _, name := range f.names {
		if !flaggable(name) {
			continue
		}
		p := f.props[name]
		p.flag = "--" + name
		if dashed := "--" + strings.ReplaceAll(name, "_", "-"); spelling[dashed] == p {
			p.flag = dashed
		}
	}
	f.set = &argv.Set{Command: tool, Syntax: argv.Exact, HelpWords: []string{"--help"}}
	for _, p := range f.flagged() {
		a := &argv.Flag{Names: []string{p.flag}, Value: strings.TrimSpace(p.placeholder()), Bool: p.switchFlag, About: p.explain(), Required: p.required}
		for _, sp := range slices.Sorted(maps.Keys(spelling)) {
			if spelling[sp] == p && sp != p.flag {
				a.Aliases = append(a.Aliases, sp)
			}
		}
		f.set.Flags = append(f.set.Flags, a)
		f.byArg[a] = p
	}
	f.json = &argv.Flag{Names: []string{"--json"}, Value: "'{…}'", About: "the whole input as one JSON object"}
	f.set.Flags = append(f.set.Flags, f.json)
	f.allowed = f.set.Pool()
	return f, nil
}

// flaggable reports whether a property can be named by a flag: not the
// reserved --json and --help, nothing a flag cannot spell.
func flaggable(name string) bool {
	if name == "" || name == "json" || name == "help" || strings.HasPrefix(name, "-") {
		return false
	}
	return !strings.ContainsAny(name, "= \t\n")
}

func typeIsObject(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "object"
	case []any:
		return len(t) == 1 && t[0] == "object"
	}
	return false
}

// Allowed returns the flags the tool takes, --json among them, sorted.
func (f *Flags) Allowed() []string { return slices.Clone(f.allowed) }

// ParseArgs maps a call's words onto the input schema of tool, reading
// JSON from stdin when there are no words; see [Flags]. It returns the
// input object; it does not validate it against the schema.
func ParseArgs(tool string, schema json.RawMessage, args []string, stdin io.Reader) (json.RawMessage, error) {
	f, err := NewFlags(tool, schema)
	if err != nil {
		return nil, err
	}
	return f.Parse(args, stdin)
}

// Parse maps the words after the tool's name onto the input object. With
// no words, a non-nil stdin is read (at most [MaxStdin] bytes) and must
// hold one JSON object, or nothing, which is {}; with words, stdin is not
// read. Parse returns [ErrHelp] for --help and a one-line error
// ([*UnknownArgumentError], [*MissingValueError], [*ValueError], [*UsageError],
// [*UnknownPropertyError]) when the words cannot be mapped.
func (f *Flags) Parse(args []string, stdin io.Reader) (json.RawMessage, error) {
	if len(args) == 0 && stdin != nil {
		data, err := io.ReadAll(io.LimitReader(stdin, MaxStdin+1))
		if err != nil {
			return nil, &UsageError{Tool: f.tool, Message: fmt.Sprintf("reading stdin: %v", err), Allowed: []string{"flags (--help)"}}
		}
		return f.parseStdin(data)
	}
	return f.parseWords(args)
}

// parseStdin reads the input a pipe gave; empty input is {}.
func (f *Flags) parseStdin(data []byte) (json.RawMessage, error) {
	if len(data) > MaxStdin {
		return nil, &UsageError{Tool: f.tool, Message: fmt.Sprintf("input on stdin over %d bytes", MaxStdin), Allowed: []string{fmt.Sprintf("at most %d bytes", MaxStdin)}}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return json.RawMessage(`{}`), nil
	}
	return f.object(data, "stdin", "one JSON object", "flags (--help)")
}

func (f *Flags) parseWords(args []string) (json.RawMessage, error) {
	values := make(map[string]json.RawMessage)
	arrays := make(map[string][]json.RawMessage)
	var whole json.RawMessage
	firstFlag := ""
	sc := f.set.Scan(args)
	for {
		it, ok := sc.Next()
		if !ok {
			break
		}
		switch it.Kind {
		case argv.HelpAsked:
			return nil, ErrHelp
		case argv.Refused:
			if it.Err.Problem == argv.MissingValue {
				return nil, &MissingValueError{Tool: f.tool, Flag: it.Err.Word, Usage: it.Err.Allowed[0]}
			}
			return nil, &UnknownArgumentError{Tool: f.tool, Arg: it.Err.Word, Allowed: f.allowed}
		case argv.Operand, argv.EndOfFlags:
			return nil, &UnknownArgumentError{Tool: f.tool, Arg: it.Word, Allowed: f.allowed}
		}
		value, hasValue := it.Value, it.HasValue
		if it.Flag == f.json {
			if whole != nil {
				return nil, &UsageError{Tool: f.tool, Message: "flag '--json' given twice", Allowed: []string{"one --json"}}
			}
			obj, err := f.object([]byte(value), "--json", "--json OBJECT")
			if err != nil {
				return nil, err
			}
			whole = obj
			continue
		}
		p := f.byArg[it.Flag]
		if firstFlag == "" {
			firstFlag = p.flag
		}
		if p.switchFlag {
			switch {
			case !hasValue || value == "true":
				value = "true"
			case value == "false":
			default:
				return nil, &ValueError{Tool: f.tool, Flag: p.flag, Value: value, Want: "a boolean",
					Hint: fmt.Sprintf("write %s, %s=true or %s=false", p.flag, p.flag, p.flag)}
			}
			if _, seen := values[p.name]; seen {
				return nil, &UsageError{Tool: f.tool, Message: "flag " + refusal.Quote(p.flag) + " given twice", Allowed: []string{"one " + p.flag}}
			}
			values[p.name] = json.RawMessage(value)
			continue
		}
		if p.array {
			items, err := f.arrayItems(p, value)
			if err != nil {
				return nil, err
			}
			arrays[p.name] = append(arrays[p.name], items...)
			continue
		}
		if _, seen := values[p.name]; seen {
			return nil, &UsageError{Tool: f.tool, Message: "flag " + refusal.Quote(p.flag) + " given twice", Allowed: []string{"one " + p.flag}}
		}
		v, ok := convert(p.types, value)
		if !ok {
			return nil, f.valueError(p, p.types, value)
		}
		values[p.name] = v
	}
	if whole != nil {
		if firstFlag != "" {
			return nil, &UsageError{Tool: f.tool, Message: "--json beside " + refusal.Quote(firstFlag), Allowed: []string{"--json alone (the whole input)", "flags without --json"}}
		}
		return whole, nil
	}
	for name, items := range arrays {
		b, err := json.Marshal(items)
		if err != nil {
			return nil, &UsageError{Tool: f.tool, Message: err.Error()}
		}
		values[name] = b
	}
	b, err := json.Marshal(values)
	if err != nil {
		return nil, &UsageError{Tool: f.tool, Message: err.Error()}
	}
	return b, nil
}

// arrayItems reads one word of an array flag: comma-separated values, or
// JSON when the items are objects or arrays, or when their type is not
// declared and the word is a JSON object or array.
func (f *Flags) arrayItems(p *property, word string) ([]json.RawMessage, error) {
	trimmed := bytes.TrimSpace([]byte(word))
	isJSON := len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed)
	if p.jsonItems && !isJSON {
		return nil, &ValueError{Tool: f.tool, Flag: p.flag, Value: word, Want: "JSON",
			Hint: "give one item as a JSON " + strings.Join(p.items, " or ") + ", or a JSON array of items"}
	}
	if isJSON && (p.jsonItems || p.items == nil) {
		if trimmed[0] == '[' && !slices.Contains(p.items, "array") {
			var items []json.RawMessage
			if err := json.Unmarshal(trimmed, &items); err != nil {
				return nil, &UsageError{Tool: f.tool, Message: err.Error()}
			}
			return items, nil
		}
		// json.Marshal compacts the items when it writes the input.
		return []json.RawMessage{trimmed}, nil
	}
	parts := strings.Split(word, ",")
	items := make([]json.RawMessage, len(parts))
	for i, part := range parts {
		v, ok := convert(p.items, part)
		if !ok {
			return nil, f.valueError(p, p.items, part)
		}
		items[i] = v
	}
	return items, nil
}

func (f *Flags) valueError(p *property, types []string, value string) error {
	e := &ValueError{Tool: f.tool, Flag: p.flag, Value: value, Want: wantText(types)}
	if len(types) == 1 && types[0] == "integer" {
		e.Want = "an integer (base 10)"
	}
	if p.array {
		e.Hint = fmt.Sprintf("repeat %s or separate values with commas", p.flag)
	}
	return e
}

// object checks that data is one JSON object and that it names only the
// schema's properties when the schema admits no others; it returns the
// object compacted. Data that is not one JSON object is a [*UsageError]
// naming source (where the input came from) and allowing allowed; an
// unknown key is an [*UnknownPropertyError].
func (f *Flags) object(data []byte, source string, allowed ...string) (json.RawMessage, error) {
	notObject := func(reason string) error {
		return &UsageError{Tool: f.tool, Message: source + " is not one JSON object: " + reason, Allowed: allowed}
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, notObject("not a JSON object")
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, notObject(err.Error())
	}
	if f.closed {
		var unknown []string
		for k := range keys {
			if f.props[k] == nil {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return nil, &UnknownPropertyError{Tool: f.tool, Property: unknown[0], Allowed: f.names}
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, notObject(err.Error())
	}
	return buf.Bytes(), nil
}

func wantText(types []string) string {
	if len(types) == 0 {
		return "a value"
	}
	names := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "integer":
			names[i] = "an integer"
		case "object":
			names[i] = "a JSON object"
		case "array":
			names[i] = "a JSON array"
		case "null":
			names[i] = "null"
		default:
			names[i] = "a " + t
		}
	}
	return strings.Join(names, " or ")
}
