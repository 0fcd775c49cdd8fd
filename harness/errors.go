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
func (e *UnknownArgumentError) Error() string {
	if len(e.Arg) < 2 || e.Arg[0] != '-' || e.Arg == "--" {
		return refusal.Line(e.Tool, "unexpected argument "+refusal.Quote(e.Arg), e.Allowed)
	}
	return (&argv.Error{Command: e.Tool, Problem: argv.UnknownFlag, Word: e.Arg, Allowed: e.Allowed}).Error()
}

// MissingValueError refuses a flag that takes a value given as the last
// word. Usage is how to write it: "--lines INTEGER".
type MissingValueError struct {
	Tool, Flag, Usage string
}

// Error is the refusal: "logs: flag '--lines' needs a value; allowed:
// --lines INTEGER".
func (e *MissingValueError) Error() string {
	return (&argv.Error{Command: e.Tool, Problem: argv.MissingValue, Word: e.Flag, Allowed: []string{e.Usage}}).Error()
}

// UnknownPropertyError refuses a key of JSON input that the schema does
// not name.
type UnknownPropertyError struct {
	Tool     string
	Property string
	Allowed  []string // the schema's property names, sorted
}

// Error is the refusal: "logs: unknown property 'unti'; allowed: …".
func (e *UnknownPropertyError) Error() string {
	return fmt.Sprintf("%s: unknown property '%s'; allowed: %s", e.Tool, printable(e.Property), kernel.Pool(e.Allowed))
}

// ValueError refuses a flag's value that is not of the property's type.
type ValueError struct {
	Tool  string
	Flag  string // "--lines"
	Value string // the word as typed
	Want  string // "an integer (base 10)", "a boolean", …
	Hint  string // how to write it, or ""
}

// Error is the refusal: "logs: --lines: '1.9' is not an integer (base 10)".
func (e *ValueError) Error() string {
	line := fmt.Sprintf("%s: %s: '%s' is not %s", e.Tool, e.Flag, printable(e.Value), e.Want)
	if e.Hint != "" {
		line += "; " + e.Hint
	}
	return line
}

// UsageError refuses a call whose words cannot be mapped onto the input:
// a flag given twice, --json beside flags, input
// on stdin that is not a JSON object.
type UsageError struct {
	Tool    string
	Message string
}

// Error is the refusal: the tool's name, then the message.
func (e *UsageError) Error() string { return e.Tool + ": " + printable(e.Message) }

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

// Error is the refusal: "logs: missing required property 'unit'",
// "logs: property '/tags/1': got number, want string".
func (e *SchemaError) Error() string {
	prefix := e.Tool + ": "
	prop := printable(e.Property)
	if e.Output {
		prefix += "output: "
	}
	switch {
	case e.Keyword == "required":
		return fmt.Sprintf("%smissing required property '%s'", prefix, prop)
	case e.Property == "":
		if e.Output {
			return prefix + printable(e.Message)
		}
		return fmt.Sprintf("%sinput: %s", prefix, printable(e.Message))
	}
	return fmt.Sprintf("%sproperty '%s': %s", prefix, prop, printable(e.Message))
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
