package wrapped

import (
	"fmt"
	"strings"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/internal/refusal"
)

// Every refusal of a call is one of the types below. Scope is the command
// as typed ("git log" for a named verb, "git" for the root); Error() is the
// one line shelter prints on stderr before exiting with status 2. Values
// quoted in a line are shown with control characters escaped and cut at
// 80 characters, so the line stays one line; the fields hold them whole.

// UnknownVerbError: the first word names no verb, and there is no root or
// the root takes no such word.
type UnknownVerbError struct {
	Command, Verb string
	Allowed       []string // sorted
}

func (e *UnknownVerbError) Error() string {
	return refusal.Line(e.Command, "unknown verb "+refusal.Quote(e.Verb), e.Allowed)
}

// MissingVerbError: the call gave no verb (no words, or a flag first) and
// there is no root.
type MissingVerbError struct {
	Command string
	Allowed []string // sorted
}

func (e *MissingVerbError) Error() string {
	return refusal.Line(e.Command, "no verb given", e.Allowed)
}

// UnknownFlagError: a flag word matches no declared spelling.
type UnknownFlagError struct {
	Scope, Flag string
	Allowed     []string // the verb's flags, each its spellings joined by /: -n/--max-count
}

func (e *UnknownFlagError) Error() string {
	return (&argv.Error{Command: e.Scope, Problem: argv.UnknownFlag, Word: e.Flag, Allowed: e.Allowed}).Error()
}

// ClusteredFlagsError: a word such as -sv whose every letter is a declared
// one-letter switch.
type ClusteredFlagsError struct {
	Scope, Word string
	Flags       []string // -s, -v
}

func (e *ClusteredFlagsError) Error() string {
	return (&argv.Error{Command: e.Scope, Problem: argv.ClusteredFlags, Word: e.Word, Allowed: e.Flags}).Error()
}

// GluedValueError: a word such as -n5 that starts with a declared
// one-letter value flag.
type GluedValueError struct {
	Scope, Word, Flag, Value string
}

func (e *GluedValueError) Error() string {
	return (&argv.Error{Command: e.Scope, Problem: argv.GluedValue, Word: e.Word, Allowed: []string{e.Flag, e.Value}}).Error()
}

// MissingValueError: a value flag is the call's last word. Usage is how
// to write it: "-n N".
type MissingValueError struct{ Scope, Flag, Usage string }

func (e *MissingValueError) Error() string {
	return (&argv.Error{Command: e.Scope, Problem: argv.MissingValue, Word: e.Flag, Allowed: []string{e.Usage}}).Error()
}

// UnexpectedValueError: a switch written --name=value.
type UnexpectedValueError struct{ Scope, Flag string }

func (e *UnexpectedValueError) Error() string {
	return (&argv.Error{Command: e.Scope, Problem: argv.UnexpectedValue, Word: e.Flag, Allowed: []string{e.Flag}}).Error()
}

// RepeatedFlagError: a flag that is not repeatable given twice, under any
// spellings.
type RepeatedFlagError struct{ Scope, Flag string }

func (e *RepeatedFlagError) Error() string {
	return fmt.Sprintf("%s: '%s' given more than once", e.Scope, e.Flag)
}

// ExtraArgumentError: a word no positional slot takes and the verb's tail
// does not accept. AfterDashDash is set when the verb would accept it after
// the call's own --.
type ExtraArgumentError struct {
	Scope, Word   string
	AfterDashDash bool
}

func (e *ExtraArgumentError) Error() string {
	if e.AfterDashDash {
		return fmt.Sprintf("%s: unexpected argument '%s'; write -- before arguments meant for the program", e.Scope, refusal.Show(e.Word))
	}
	return fmt.Sprintf("%s: unexpected argument '%s'", e.Scope, refusal.Show(e.Word))
}

// RequiredFlagError: a required flag was not given.
type RequiredFlagError struct{ Scope, Flag string }

func (e *RequiredFlagError) Error() string {
	return fmt.Sprintf("%s: required flag '%s' not given", e.Scope, e.Flag)
}

// RequiredArgumentError: a required positional argument was not given.
type RequiredArgumentError struct{ Scope, Name string }

func (e *RequiredArgumentError) Error() string {
	return fmt.Sprintf("%s: required argument '%s' not given", e.Scope, e.Name)
}

// NotIntegerError: an int flag's value is not a base-10, signed 64-bit
// integer.
type NotIntegerError struct{ Scope, Flag, Value string }

func (e *NotIntegerError) Error() string {
	return fmt.Sprintf("%s: '%s' takes an integer; got '%s'", e.Scope, e.Flag, refusal.Show(e.Value))
}

// NotChoiceError: a value outside a flag's choices.
type NotChoiceError struct {
	Scope, Flag string
	Choices     []string // declared order
	Value       string
}

func (e *NotChoiceError) Error() string {
	return fmt.Sprintf("%s: '%s' must be one of %s; got '%s'", e.Scope, e.Flag, strings.Join(e.Choices, ", "), refusal.Show(e.Value))
}

// OutsidePathError: a path_under argument that resolves outside its
// directory (Dir as declared).
type OutsidePathError struct{ Scope, Name, Dir, Value string }

func (e *OutsidePathError) Error() string {
	return fmt.Sprintf("%s: '%s' must be under %s; got '%s'", e.Scope, e.Name, e.Dir, refusal.Show(e.Value))
}

// PathOpenError: a path_under argument that passed the check but could
// not be opened beneath its directory when the program was about to start
// (a directory without search permission, a file where a directory was).
type PathOpenError struct {
	Scope, Name, Value string
	Err                error
}

func (e *PathOpenError) Error() string {
	return fmt.Sprintf("%s: '%s': cannot open '%s': %v", e.Scope, e.Name, refusal.Show(e.Value), e.Err)
}

func (e *PathOpenError) Unwrap() error { return e.Err }

// NULError: an argument holds a NUL byte. Index counts the words after the
// command's name from 1, as $1, $2… do.
type NULError struct {
	Scope string
	Index int
}

func (e *NULError) Error() string {
	return fmt.Sprintf("%s: argument %d contains a NUL byte", e.Scope, e.Index)
}

// StdinError: input was given to a verb whose stdin is closed.
type StdinError struct{ Scope string }

func (e *StdinError) Error() string { return e.Scope + ": does not read stdin" }

// DashValueError: in a JSON call, a positional value that starts with -,
// which the program would read as a flag.
type DashValueError struct{ Scope, Name, Value string }

func (e *DashValueError) Error() string {
	return fmt.Sprintf("%s: '%s' may not start with '-'; got '%s'", e.Scope, e.Name, refusal.Show(e.Value))
}

// InputError: a JSON call's input does not fit the verb's schema: an
// unknown property, a value of the wrong type, a gap in the arguments.
type InputError struct{ Scope, Msg string }

func (e *InputError) Error() string { return e.Scope + ": " + e.Msg }
