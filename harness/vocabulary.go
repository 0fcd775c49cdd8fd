package harness

import (
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// schemaKeywords are the keywords of JSON Schema draft 2020-12 (core,
// applicator, unevaluated, validation, meta-data, format and content
// vocabularies).
var schemaKeywords = []string{
	"$anchor", "$comment", "$defs", "$dynamicAnchor", "$dynamicRef", "$id", "$ref", "$schema", "$vocabulary",
	"additionalProperties", "allOf", "anyOf", "const", "contains", "contentEncoding", "contentMediaType",
	"contentSchema", "default", "dependentRequired", "dependentSchemas", "deprecated", "description", "else",
	"enum", "examples", "exclusiveMaximum", "exclusiveMinimum", "format", "if", "items", "maxContains",
	"maxItems", "maxLength", "maxProperties", "maximum", "minContains", "minItems", "minLength",
	"minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern", "patternProperties", "prefixItems",
	"properties", "propertyNames", "readOnly", "required", "then", "title", "type", "unevaluatedItems",
	"unevaluatedProperties", "uniqueItems", "writeOnly",
}

// Where a keyword's value holds further schemas.
var (
	subschemaOne  = []string{"additionalProperties", "contains", "contentSchema", "else", "if", "items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"}
	subschemaMap  = []string{"$defs", "dependentSchemas", "patternProperties", "properties"}
	subschemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	// nullable are the keywords whose value may be JSON null.
	nullable = []string{"const", "default"}
)

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// checkVocabulary refuses what YAML lets slip into a schema: a key with
// no value (in a flow mapping, `{description: a, b}` makes "b" a key of
// null), and, for a draft 2020-12 schema, a key that is no keyword of it.
// at is the JSON pointer of n in the schema document.
func (d *decoder) checkVocabulary(n *yaml.Node, at string, strict bool) error {
	n = resolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil // a boolean schema, or a type error the compiler names
	}
	if at == "" {
		strict = true
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := resolveAlias(n.Content[i+1]); n.Content[i].Value == "$schema" && v.Kind == yaml.ScalarNode {
				strict = strings.TrimSuffix(v.Value, "#") == draft2020
			}
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		where := at + "/" + pointerToken(k.Value)
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" && !slices.Contains(nullable, k.Value) {
			hint := ""
			if n.Style&yaml.FlowStyle != 0 {
				hint = "; in {…} a comma ends a value: quote a value that holds one"
			}
			return d.errorf(k, "%skey '%s' has no value%s", located(at), k.Value, hint)
		}
		if strict && !slices.Contains(schemaKeywords, k.Value) {
			return d.errorf(k, "%s'%s' is not a JSON Schema 2020-12 keyword; allowed: %s", located(at), k.Value, strings.Join(schemaKeywords, ", "))
		}
		var err error
		switch {
		case slices.Contains(subschemaOne, k.Value):
			err = d.checkVocabulary(v, where, strict)
		case slices.Contains(subschemaMap, k.Value) && v.Kind == yaml.MappingNode:
			for j := 0; j+1 < len(v.Content) && err == nil; j += 2 {
				err = d.checkVocabulary(v.Content[j+1], where+"/"+pointerToken(v.Content[j].Value), strict)
			}
		case slices.Contains(subschemaList, k.Value) && v.Kind == yaml.SequenceNode:
			for j, item := range v.Content {
				if err = d.checkVocabulary(item, where+"/"+strconv.Itoa(j), strict); err != nil {
					break
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// located prefixes a message with the JSON pointer of the schema it is
// about, nothing for the top level.
func located(at string) string {
	if at == "" {
		return ""
	}
	return at + ": "
}
