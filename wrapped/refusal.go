package wrapped

import (
	"errors"
	"strconv"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel"
)

// Every refusal of a call is one of the types below. Scope is the command
// as typed ("git log" for a named verb, "git" for the root); Error() is the
// one line shelter prints on stderr before exiting with status 2, in the
// voice of every refusal: the scope, what was wrong with the offending
// word quoted, then "allowed:" and the pool (kernel.Refusal). Values
// quoted in a line are shown with control characters escaped and cut at
// 80 characters, so the line stays one line; the fields hold them whole.

// A refuser is a refusal of a call, as the kernel prints it.
type refuser interface {
	error
	refusal() *kernel.Refusal
}

// flagRefusal is the kernel's refusal of a flag, with the parts of the
// line the flag grammar words (internal/argv).
func flagRefusal(e *argv.Error) *kernel.Refusal {
	what, allowed := e.Parts()
	return &kernel.Refusal{Command: e.Command, What: what, Allowed: allowed}
}

// asRefusal is err as the kernel's refusal of a call of scope: a typed
// refusal with its own parts, any other error as what was wrong.
func asRefusal(scope string, err error) *kernel.Refusal {
	var r refuser
	if errors.As(err, &r) {
		return r.refusal()
	}
	return &kernel.Refusal{Command: scope, What: err.Error()}
}

// UnknownVerbError: the first word names no verb, and there is no root or
// the root takes no such word.
type UnknownVerbError struct {
	Command, Verb string
	Allowed       []string // sorted
}

func (e *UnknownVerbError) Error() string { return e.refusal().Error() }
func (e *UnknownVerbError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Command, What: "unknown verb " + refusal.Quote(e.Verb), Allowed: e.Allowed}
}

// MissingVerbError: the call gave no verb (no words, or a flag first) and
// there is no root.
type MissingVerbError struct {
	Command string
	Allowed []string // sorted
}

func (e *MissingVerbError) Error() string { return e.refusal().Error() }
func (e *MissingVerbError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Command, What: "no verb given", Allowed: e.Allowed}
}

// UnknownFlagError: a flag word matches no declared spelling.
type UnknownFlagError struct {
	Scope, Flag string
	Allowed     []string // the verb's flags, each its spellings joined by /: -n/--max-count
}

func (e *UnknownFlagError) Error() string { return e.refusal().Error() }
func (e *UnknownFlagError) refusal() *kernel.Refusal {
	return flagRefusal(&argv.Error{Command: e.Scope, Problem: argv.UnknownFlag, Word: e.Flag, Allowed: e.Allowed})
}

// ClusteredFlagsError: a word such as -sv whose every letter is a declared
// one-letter switch.
type ClusteredFlagsError struct {
	Scope, Word string
	Flags       []string // -s, -v
}

func (e *ClusteredFlagsError) Error() string { return e.refusal().Error() }
func (e *ClusteredFlagsError) refusal() *kernel.Refusal {
	return flagRefusal(&argv.Error{Command: e.Scope, Problem: argv.ClusteredFlags, Word: e.Word, Allowed: e.Flags})
}

// GluedValueError: a word such as -n5 that starts with a declared
// one-letter value flag.
type GluedValueError struct {
	Scope, Word, Flag, Value string
}

func (e *GluedValueError) Error() string { return e.refusal().Error() }
func (e *GluedValueError) refusal() *kernel.Refusal {
	return flagRefusal(&argv.Error{Command: e.Scope, Problem: argv.GluedValue, Word: e.Word, Allowed: []string{e.Flag, e.Value}})
}

// MissingValueError: a value flag is the call's last word. Usage is how
// to write it: "-n N".
type MissingValueError struct{ Scope, Flag, Usage string }

func (e *MissingValueError) Error() string { return e.refusal().Error() }
func (e *MissingValueError) refusal() *kernel.Refusal {
	return flagRefusal(&argv.Error{Command: e.Scope, Problem: argv.MissingValue, Word: e.Flag, Allowed: []string{e.Usage}})
}

// UnexpectedValueError: a switch written --name=value.
type UnexpectedValueError struct{ Scope, Flag string }

func (e *UnexpectedValueError) Error() string { return e.refusal().Error() }
func (e *UnexpectedValueError) refusal() *kernel.Refusal {
	return flagRefusal(&argv.Error{Command: e.Scope, Problem: argv.UnexpectedValue, Word: e.Flag, Allowed: []string{e.Flag}})
}

// RepeatedFlagError: a flag that is not repeatable given twice, under any
// spellings.
type RepeatedFlagError struct{ Scope, Flag string }

func (e *RepeatedFlagError) Error() string { return e.refusal().Error() }
func (e *RepeatedFlagError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: "flag " + refusal.Quote(e.Flag) + " given more than once", Allowed: []string{"one " + e.Flag}}
}

// ExtraArgumentError: a word no positional slot takes and the verb's tail
// does not accept. AfterDashDash is set when the verb would accept it after
// the call's own --.
type ExtraArgumentError struct {
	Scope, Word   string
	AfterDashDash bool
}

func (e *ExtraArgumentError) Error() string { return e.refusal().Error() }
func (e *ExtraArgumentError) refusal() *kernel.Refusal {
	r := &kernel.Refusal{Command: e.Scope, What: "unexpected argument " + refusal.Quote(e.Word)}
	if e.AfterDashDash {
		r.Allowed = []string{"-- before arguments meant for the program"}
	}
	return r
}

// RequiredFlagError: a required flag was not given.
type RequiredFlagError struct{ Scope, Flag string }

func (e *RequiredFlagError) Error() string { return e.refusal().Error() }
func (e *RequiredFlagError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: "required flag " + refusal.Quote(e.Flag) + " not given", Allowed: []string{"a call with " + e.Flag}}
}

// RequiredArgumentError: a required positional argument was not given.
type RequiredArgumentError struct{ Scope, Name string }

func (e *RequiredArgumentError) Error() string { return e.refusal().Error() }
func (e *RequiredArgumentError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: "required argument " + refusal.Quote(e.Name) + " not given", Allowed: []string{"a call with " + e.Name}}
}

// NotIntegerError: an int flag's value is not a base-10, signed 64-bit
// integer.
type NotIntegerError struct{ Scope, Flag, Value string }

func (e *NotIntegerError) Error() string { return e.refusal().Error() }
func (e *NotIntegerError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: "invalid " + e.Flag + " " + refusal.Quote(e.Value), Allowed: []string{"a base-10 integer"}}
}

// NotChoiceError: a value outside a flag's choices.
type NotChoiceError struct {
	Scope, Flag string
	Choices     []string // declared order
	Value       string
}

func (e *NotChoiceError) Error() string { return e.refusal().Error() }
func (e *NotChoiceError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: "invalid " + e.Flag + " " + refusal.Quote(e.Value), Allowed: e.Choices}
}

// OutsidePathError: a path_under argument that resolves outside its
// directory (Dir as declared).
type OutsidePathError struct{ Scope, Name, Dir, Value string }

func (e *OutsidePathError) Error() string { return e.refusal().Error() }
func (e *OutsidePathError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: e.Name + " " + refusal.Quote(e.Value) + " is outside its directory", Allowed: []string{"paths under " + e.Dir}}
}

// PathOpenError: a path_under argument that passed the check but could
// not be opened beneath its directory when the program was about to start
// (a directory without search permission, a file where a directory was).
type PathOpenError struct {
	Scope, Name, Value string
	Err                error
}

func (e *PathOpenError) Error() string { return e.refusal().Error() }
func (e *PathOpenError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: "cannot open " + e.Name + " " + refusal.Quote(e.Value) + ": " + refusal.Show(e.Err.Error()),
		Allowed: []string{"a path that opens beneath its directory"}}
}

func (e *PathOpenError) Unwrap() error { return e.Err }

// NULError: an argument holds a NUL byte. Index counts the words after the
// command's name from 1, as $1, $2… do.
type NULError struct {
	Scope string
	Index int
}

func (e *NULError) Error() string { return e.refusal().Error() }
func (e *NULError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: "argument " + strconv.Itoa(e.Index) + " contains a NUL byte", Allowed: []string{"arguments without NUL bytes"}}
}

// StdinError: input was given to a verb whose stdin is closed.
type StdinError struct{ Scope string }

func (e *StdinError) Error() string { return e.refusal().Error() }
func (e *StdinError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: "input given on stdin, which the verb does not read", Allowed: []string{"a call without input"}}
}

// DashValueError: in a JSON call, a positional value that starts with -,
// which the program would read as a flag.
type DashValueError struct{ Scope, Name, Value string }

func (e *DashValueError) Error() string { return e.refusal().Error() }
func (e *DashValueError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: e.Name + " " + refusal.Quote(e.Value) + " starts with '-'", Allowed: []string{"a value that does not start with -"}}
}

// InputError: a JSON call's input does not fit the verb's schema: an
// unknown property, a value of the wrong type, a gap in the arguments.
// Msg says what was wrong; Allowed is what fits instead.
type InputError struct {
	Scope, Msg string
	Allowed    []string
}

func (e *InputError) Error() string { return e.refusal().Error() }
func (e *InputError) refusal() *kernel.Refusal {
	return &kernel.Refusal{Command: e.Scope, What: e.Msg, Allowed: e.Allowed}
}
