package harness

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel"
)

// ErrHelp is returned by [Flags.Parse] when the words ask for help
// (`--help`); a tool prints its help and exits 0.
var ErrHelp = errors.New("harness: help requested")

// UnknownArgumentError refuses a word the schema does not name.
type UnknownArgumentError struct {
	Tool    string
	Arg     string   // the flag as typed, without any "=value"
	Allowed []string // the flags the tool takes, sorted
}

// Error is the refusal: "logs: unknown flag '--unti'; allowed: …", or
// for a word that is no flag "logs: unexpected argument 'x'; allowed: …".
func (e *UnknownArgumentError) Error() string { return e.refusal().Error() }

func (e *UnknownArgumentError) refusal() *kernel.Refusal {
	if len(e.Arg) < 2 || e.Arg[0] != '-' || e.Arg == "--" {
		return &kernel.Refusal{Command: e.Tool, What: "unexpected argument " + refusal.Quote(e.Arg), Allowed: e.Allowed}
	}
	return flagRefusal(&argv.Error{Command: e.Tool, Problem: argv.UnknownFlag, Word: e.Arg, Allowed: e.Allowed})
}

// MissingValueError refuses a flag that takes a value given as the last
// word. Usage is how to write it: "--lines INTEGER".
type MissingValueError struct {
	Tool, Flag, Usage string
}

// Error is the refusal: "logs: flag '--lines' needs a value; allowed:
// --lines INTEGER".
func (e *MissingValueError) Error() string { return e.refusal().Error() }

func (e *MissingValueError) refusal() *kernel.Refusal {
	return flagRefusal(&argv.Error{Command: e.Tool, Problem: argv.MissingValue, Word: e.Flag, Allowed: []string{e.Usage}})
}

// flagRefusal is the kernel's refusal of a flag, with the parts of the
// line the flag grammar words (internal/argv).
func flagRefusal(e *argv.Error) *kernel.Refusal {
	what, allowed := e.Parts()
	return &kernel.Refusal{Command: e.Command, What: what, Allowed: allowed}
}

// UnknownPropertyError refuses a key of JSON input that the schema does
// not name.
type UnknownPropertyError struct {
	Tool     string
	Property string
	Allowed  []string // the schema's property names, sorted
}

// Error is the refusal: "logs: unknown property 'unti'; allowed: …".
func (e *UnknownPropertyError) Error() string { return e.refusal().Error() }

func (e *UnknownPropertyError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Tool, What: "unknown property " + kernel.Quote(e.Property), Allowed: e.Allowed}
}

// ValueError refuses a flag's value that is not of the property's type.
type ValueError struct {
	Tool  string
	Flag  string // "--lines"
	Value string // the word as typed
	Want  string // "an integer (base 10)", "a boolean", …
	Hint  string // how to write it, or ""
}

// Error is the refusal: "logs: invalid --lines '1.9'; allowed: an
// integer (base 10)", the hint after what is allowed in parentheses.
func (e *ValueError) Error() string { return e.refusal().Error() }

func (e *ValueError) refusal() *kernel.Refusal {
	allowed := e.Want
	if e.Hint != "" {
		allowed += " (" + e.Hint + ")"
	}
	return &kernel.Refusal{Command: e.Tool, What: "invalid " + e.Flag + " " + kernel.Quote(e.Value), Allowed: []string{allowed}}
}

// UsageError refuses a call whose words cannot be mapped onto the input:
// a flag given twice, --json beside flags, input
// on stdin that is not a JSON object.
type UsageError struct {
	Tool    string
	Message string   // what was wrong
	Allowed []string // what is allowed instead
}

// Error is the refusal: the tool's name, the message, then what is
// allowed.
func (e *UsageError) Error() string { return e.refusal().Error() }

func (e *UsageError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Tool, What: printable(e.Message), Allowed: e.Allowed}
}

// SchemaError is a violation of a tool's input (or output) schema.
type SchemaError struct {
	Tool string
	// Output is set when the tool's result broke its output schema.
	Output bool
	// Property is the property at fault: its name at the top level, a JSON
	// pointer ("/meta/depth") when nested, "" for the value as a whole.
	Property string
	// Keyword is the schema keyword that failed ("required", "type", …).
	Keyword string
	// Message is the validator's explanation ("got string, want integer").
	Message string
}

// Error is the refusal: "logs: missing required property 'unit';
// allowed: input with unit", "logs: property '/tags/1': got number, want
// string; allowed: (none)"; of the output, the line without a pool
// ("logs: output: …").
func (e *SchemaError) Error() string {
	if e.Output {
		// The tool's own result: a failure, not a refusal of the call.
		r := e.refusal()
		return r.Command + ": " + r.What
	}
	return e.refusal().Error()
}

func (e *SchemaError) refusal() *kernel.Refusal {
	r := &kernel.Refusal{Command: e.Tool}
	switch {
	case e.Keyword == "required":
		r.What = "missing required property " + kernel.Quote(e.Property)
		r.Allowed = []string{"input with " + printable(e.Property)}
	case e.Property == "" && e.Output:
		r.What = printable(e.Message)
	case e.Property == "":
		r.What = "input: " + printable(e.Message)
	default:
		r.What = "property " + kernel.Quote(e.Property) + ": " + printable(e.Message)
	}
	if e.Output {
		r.What = "output: " + r.What
	}
	return r
}

// A refuser is a refusal of a call, as the kernel prints it.
type refuser interface {
	error
	refusal() *kernel.Refusal
}

// asRefusal is err as the kernel's refusal of a call of tool: a typed
// refusal with its own parts, any other error as what was wrong.
func asRefusal(tool string, err error) *kernel.Refusal {
	var r refuser
	if errors.As(err, &r) {
		return r.refusal()
	}
	return &kernel.Refusal{Command: tool, What: printable(err.Error())}
}

// LoadError is an error in a tools file, at a position.
type LoadError struct {
	File      string
	Line, Col int // 1-based; 0 when unknown
	Message   string
}

// Error is the one line FILE:LINE:COL: MESSAGE.
func (e *LoadError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Message)
}

// printable keeps a refusal on one line: a word holding control
// characters is shown with Go escapes.
func printable(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
