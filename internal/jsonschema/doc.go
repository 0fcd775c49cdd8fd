// Package jsonschema validates JSON values against JSON Schema documents:
// [Compile] reads a document once into a [Schema], and [Schema.Validate]
// returns every [Violation] of a decoded value, each with its instance
// location, keyword and a one-line message.
//
// It exists so that a program linking it pays nothing at start: it has no
// package-level set-up, and compiles no meta-schema.
//
// # Dialects
//
// Draft 2020-12 is the default. A document whose $schema names another
// draft is read as that draft: 2019-09 (items as an array with
// additionalItems), draft-07 (also: siblings of $ref are ignored,
// dependencies, definitions, "$id": "#name" anchors), draft-06 as
// draft-07, and draft-04 as draft-07 with its boolean exclusiveMaximum
// and exclusiveMinimum (its "id" is not read). Any other $schema is a
// compile error. Only the root's $schema counts.
//
// # Keywords
//
// Assertions: type (integer is a number without a fractional part, so
// 1.0 is one), enum, const, multipleOf, maximum, exclusiveMaximum,
// minimum, exclusiveMinimum, maxLength and minLength (in code points),
// pattern (Go's RE2 syntax: a pattern RE2 rejects, such as a lookahead,
// is a compile error), maxItems, minItems, uniqueItems (JSON equality:
// 1 equals 1.0, key order does not count), contains, maxContains,
// minContains, maxProperties, minProperties, required, dependentRequired.
// Applicators: properties, patternProperties, additionalProperties,
// propertyNames, dependentSchemas, prefixItems and items (draft-07: items
// as an array, additionalItems), allOf, anyOf, oneOf, not, if/then/else,
// $ref, and boolean schemas. Numbers are compared exactly.
//
// unevaluatedProperties and unevaluatedItems (2019-09 and 2020-12) see
// the parts evaluated by the keywords beside them and by the in-place
// subschemas that passed ($ref, allOf, every anyOf and oneOf branch that
// passed, if, then, else, dependentSchemas); in 2020-12 contains counts
// the items it matched. One departure: the schema of a not that fails (it
// matched) counts too, so that the not is the violation reported, not its
// echo in unevaluated*.
//
// $ref resolves inside the document only: by JSON pointer ("#/$defs/a"),
// by an $id of a subschema, or by an anchor ($anchor, $dynamicAnchor). A
// reference to anything outside the document is a compile error: a
// schema never reads a file or the network. $dynamicRef (2020-12) and
// $recursiveRef (2019-09) resolve the same way, and when their target is
// a $dynamicAnchor of the same name (a $recursiveAnchor), they land on the
// outermost resource of the dynamic scope that defines it. An anchor
// defined twice in one resource is a compile error.
//
// Annotations (title, description, default, examples, format, readOnly,
// writeOnly, deprecated, $comment, content*) and unknown keywords are
// ignored; format asserts nothing, in any draft (draft-07 lets a
// validator choose).
//
// Not read: $vocabulary (every dialect's vocabularies are on), the
// $schema of an embedded resource (the root's dialect holds throughout),
// and draft-04's id.
//
// # Bounds
//
// A schema that applies itself to the same value without end (a cycle of
// $ref, allOf, not… that never goes into a part of the value) is a
// compile error. Validation goes [MaxDepth] levels into a value and no
// further (a deeper part is a violation, keyword "depth"), and gives up,
// with one violation (keyword "steps"), after a million schema
// applications. A number whose exponent is beyond ±10000 is not compared:
// where a keyword needs its value, it is a violation.
package jsonschema
