package harness

import (
	"testing"

	"github.com/shelter-sh/shelter/internal/refusal/refusaltest"
)

// TestRefusalVoice checks each kind of refusal of a harness tool's call in
// the voice of every refusal (docs/embedding.md, "Tools"); flags_test.go
// and schema_test.go hold the lines the calls give.
func TestRefusalVoice(t *testing.T) {
	for _, tc := range []struct {
		err  refuser
		line string
		word string
	}{
		{&UnknownArgumentError{Tool: "logs", Arg: "--unti", Allowed: []string{"--unit", "--lines"}},
			"logs: unknown flag '--unti'; allowed: --lines, --unit", "--unti"},
		{&UnknownArgumentError{Tool: "logs", Arg: "nginx", Allowed: []string{"--unit", "--lines"}},
			"logs: unexpected argument 'nginx'; allowed: --lines, --unit", "nginx"},
		{&MissingValueError{Tool: "logs", Flag: "--lines", Usage: "--lines INTEGER"},
			"logs: flag '--lines' needs a value; allowed: --lines INTEGER", "--lines"},
		{&UnknownPropertyError{Tool: "logs", Property: "unti", Allowed: []string{"unit", "lines"}},
			"logs: unknown property 'unti'; allowed: lines, unit", "unti"},
		{&ValueError{Tool: "logs", Flag: "--lines", Value: "1.9", Want: "an integer (base 10)"},
			"logs: invalid --lines '1.9'; allowed: an integer (base 10)", "1.9"},
		{&ValueError{Tool: "logs", Flag: "--follow", Value: "yes", Want: "a boolean", Hint: "write --follow"},
			"logs: invalid --follow 'yes'; allowed: a boolean (write --follow)", "yes"},
		{&UsageError{Tool: "logs", Message: "flag '--unit' given twice", Allowed: []string{"one --unit"}},
			"logs: flag '--unit' given twice; allowed: one --unit", "--unit"},
		{&SchemaError{Tool: "logs", Property: "unit", Keyword: "required", Message: "missing"},
			"logs: missing required property 'unit'; allowed: input with unit", "unit"},
		{&SchemaError{Tool: "logs", Property: "/tags/1", Keyword: "type", Message: "got number, want string"},
			"logs: property '/tags/1': got number, want string; allowed: (none)", "/tags/1"},
	} {
		if got := tc.err.Error(); got != tc.line {
			t.Errorf("%T:\n got %s\nwant %s", tc.err, got, tc.line)
		}
		r := tc.err.refusal()
		refusaltest.Check(t, r.Error(), r.Command, r.What, r.Allowed, tc.word)
	}
}
