package argv

import (
	"strings"

	"github.com/shelter-sh/shelter/internal/refusal"
)

// Problem is what an [Error] refuses.
type Problem uint8

const (
	// UnknownFlag: no flag has the name; Allowed is the set's pool.
	UnknownFlag Problem = iota + 1
	// AmbiguousFlag: a prefix of several long names (GNU); Allowed are
	// those names.
	AmbiguousFlag
	// MissingValue: a flag that takes a value is the last word; Allowed
	// is how to write it ("-n NUM").
	MissingValue
	// UnexpectedValue: a switch written with =VALUE; Allowed is the
	// switch alone.
	UnexpectedValue
	// ClusteredFlags: one-letter switches written as one word (Exact);
	// Allowed are the switches, one by one.
	ClusteredFlags
	// GluedValue: a one-letter flag glued to its value (Exact); Allowed
	// is the flag, then the value.
	GluedValue
)

// An Error refuses a command line's flag: one line, the command first,
// the word at fault quoted, then what is allowed (internal/refusal):
//
//	head: unknown flag '--nosuch'; allowed: -c/--bytes, -n/--lines
//	cp: ambiguous flag '--no'; allowed: --no-clobber, --no-dereference
//	head: flag '-n' needs a value; allowed: -n NUM
//	cat: flag '--number' takes no value; allowed: --number
//	git log: flags '-sv' written as one word; allowed: -s -v
//	git log: value glued to flag '-n5'; allowed: -n 5
type Error struct {
	Command string
	Problem Problem
	// Word is the flag as the line quotes it: as written, without
	// =VALUE (GNU's letter of a cluster, its long name completed from a
	// prefix; the Go syntax's name with the dashes it documents).
	Word    string
	Allowed []string
}

func (e *Error) Error() string {
	what, allowed := e.Parts()
	return refusal.Line(e.Command, what, allowed)
}

// Parts are the line's parts after the command: what was wrong, with the
// word quoted, and the pool, for a caller that hands the refusal on in
// its own type (kernel.Refusal).
func (e *Error) Parts() (what string, allowed []string) {
	q := refusal.Quote(e.Word)
	switch e.Problem {
	case AmbiguousFlag:
		return "ambiguous flag " + q, e.Allowed
	case MissingValue:
		return "flag " + q + " needs a value", e.Allowed
	case UnexpectedValue:
		return "flag " + q + " takes no value", e.Allowed
	case ClusteredFlags:
		return "flags " + q + " written as one word", []string{strings.Join(e.Allowed, " ")}
	case GluedValue:
		var fix []string
		if len(e.Allowed) == 2 {
			fix = []string{e.Allowed[0] + " " + refusal.Show(e.Allowed[1])}
		}
		return "value glued to flag " + q, fix
	}
	return "unknown flag " + q, e.Allowed
}
