package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer words validation messages; it is made on the first violation.
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// noLoader refuses every reference outside the schema itself: a tool's
// schema never reads files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("reference %s is not loaded: a tool's schema may only refer inside itself", url)
}

// compileSchema compiles one schema document, draft 2020-12 unless its
// $schema says otherwise. The error is one line.
func compileSchema(tool, which string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s schema is not JSON: %v", which, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("%s schema must be a JSON object", which)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "mem:///" + tool + "/" + which + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s schema: %v", which, oneLine(err.Error()))
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s schema: %v", which, oneLine(err.Error()))
	}
	return sch, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// validate checks a JSON value against a compiled schema; a violation is a
// [*SchemaError] naming one property. properties are the schema's own, for
// the refusal of an unknown one.
func validate(tool string, output bool, sch *jsonschema.Schema, value json.RawMessage, properties []string) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		if output {
			return fmt.Errorf("output is not JSON: %v", err)
		}
		return &UsageError{Tool: tool, Message: "input is not JSON: " + err.Error()}
	}
	err = sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &SchemaError{Tool: tool, Output: output, Message: oneLine(err.Error())}
	}
	var found []*SchemaError
	collect(ve, &found)
	if len(found) == 0 {
		return &SchemaError{Tool: tool, Output: output, Message: oneLine(ve.Error())}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].Property != found[j].Property {
			return found[i].Property < found[j].Property
		}
		return found[i].Message < found[j].Message
	})
	first := found[0]
	first.Tool, first.Output = tool, output
	if first.Keyword == "additionalProperties" && !output && !strings.HasPrefix(first.Property, "/") {
		return &UnknownPropertyError{Tool: tool, Property: first.Property, Allowed: properties}
	}
	return first
}

// collect gathers the violations at the leaves of a validation error; an
// anyOf or oneOf that failed is one violation, not one per branch.
func collect(e *jsonschema.ValidationError, out *[]*SchemaError) {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		*out = append(*out, violation(e))
		return
	}
	if len(e.Causes) == 0 {
		*out = append(*out, violation(e))
		return
	}
	for _, c := range e.Causes {
		collect(c, out)
	}
}

func violation(e *jsonschema.ValidationError) *SchemaError {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		if len(k.Missing) == 0 {
			break
		}
		missing := append([]string(nil), k.Missing...)
		sort.Strings(missing)
		return &SchemaError{Property: pointer(append(loc[:len(loc):len(loc)], missing[0])), Keyword: "required", Message: "missing"}
	case *kind.AdditionalProperties:
		if len(k.Properties) == 0 {
			break
		}
		props := append([]string(nil), k.Properties...)
		sort.Strings(props)
		return &SchemaError{Property: pointer(append(loc[:len(loc):len(loc)], props[0])), Keyword: "additionalProperties", Message: "not allowed"}
	}
	keyword := ""
	if path := e.ErrorKind.KeywordPath(); len(path) > 0 {
		keyword = path[0]
	}
	return &SchemaError{Property: pointer(loc), Keyword: keyword, Message: oneLine(e.ErrorKind.LocalizedString(printer()))}
}

// pointer names a location: a top-level property by its name, anything
// deeper by its JSON pointer, the value itself by "".
func pointer(tokens []string) string {
	switch len(tokens) {
	case 0:
		return ""
	case 1:
		return tokens[0]
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
