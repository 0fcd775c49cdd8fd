package argv

import (
	"slices"
	"strings"
)

// A Flag is one flag of a command: the words that name it, what value it
// takes, and how help describes it. A Flag is read-only once a [Set]
// holds it.
type Flag struct {
	// Names are the words that name the flag, dashes included: "-n",
	// "--max-count", "-std". Help and refusals show them, one-letter
	// names first.
	Names []string
	// Aliases name the flag too, and are shown nowhere: a harness
	// property max_lines is --max-lines, and --max_lines as well.
	Aliases []string
	// Value names the flag's value in help ("NUM"); "" makes the flag a
	// switch.
	Value string
	// Optional lets a long name stand without its value, which is then
	// Implied; a value is then attached with = only (xargs --replace,
	// --replace=R).
	Optional bool
	Implied  string
	// Bool lets a switch be given a value attached with =
	// (--json=false); the caller reads the value.
	Bool bool
	// About is the flag's description; help shows its first line.
	About string
	// Default is what the command does without the flag, as help shows
	// it; Required and Repeatable are shown beside it. The parse does
	// not enforce them: the caller does.
	Default              string
	Required, Repeatable bool
}

// isShort reports whether a name is a one-letter one: -x.
func isShort(name string) bool { return len(name) == 2 && name[0] == '-' && name[1] != '-' }

// shown are the names help and refusals show: one-letter ones first,
// then the others in declared order.
func (f *Flag) shown() []string {
	out := make([]string, 0, len(f.Names))
	for _, n := range f.Names {
		if isShort(n) {
			out = append(out, n)
		}
	}
	for _, n := range f.Names {
		if !isShort(n) {
			out = append(out, n)
		}
	}
	return out
}

// Spelling is the flag as a refusal's pool names it: its names joined
// by "/", one-letter ones first ("-n/--max-count").
func (f *Flag) Spelling() string { return strings.Join(f.shown(), "/") }

// Usage is the flag as help lists it: its names joined by ", ", then its
// value ("-n, --lines NUM", "--replace[=R]").
func (f *Flag) Usage() string {
	u := strings.Join(f.shown(), ", ")
	switch {
	case f.Value == "":
	case f.Optional:
		u += "[=" + f.Value + "]"
	default:
		u += " " + f.Value
	}
	return u
}

// names reports whether the flag is named by name, dashes included.
func (f *Flag) names(name string) bool {
	return slices.Contains(f.Names, name) || slices.Contains(f.Aliases, name)
}

// Syntax is how a command line's words name flags.
type Syntax uint8

const (
	// Exact reads a word as a flag only when it is one of the flag's
	// names whole, or a name longer than -x followed by =VALUE. A value
	// is otherwise the next word, whatever it looks like. One-letter
	// switches written as one word (-sv) and a one-letter flag glued to
	// its value (-n5) are refused with the words to write instead: the
	// wrapped commands, whose argv shelter renders (docs/wrapped_command.md).
	Exact Syntax = iota
	// GNU is getopt_long(3): one-letter flags cluster (-sv), a letter's
	// value may be glued to it (-n5), and a long name may be cut to a
	// prefix no other long name has (--max for --max-count), its value
	// attached as --name=VALUE or the next word: the builtins
	// (docs/sandbox.md).
	GNU
	// Go is Go's flag package: every name with one dash or two (-json,
	// --json, --c), a value attached with = or the next word, a switch's
	// value attached only: the shelter CLI (docs/cli.md).
	Go
)

// A Set is a command's flags and the grammar its words follow. A Set is
// read-only once a [Scanner] reads with it, and then safe for concurrent
// use.
type Set struct {
	// Command names the command in refusals: "head", "git log",
	// "shelter check".
	Command string
	Syntax  Syntax
	Flags   []*Flag
	// Interleaved lets flags follow operands, as getopt_long permutes
	// them; otherwise the first operand ends the flags, as POSIX getopt
	// and Go's flag package do. "--" ends them either way.
	Interleaved bool
	// HelpWords are the words that ask for the command's help, unless a flag
	// has that name: "--help", "-h". With the Go syntax each is also
	// written with the other number of dashes, or with =VALUE.
	HelpWords []string
	// Numeric is the flag -NUM stands for (head -5 is head -n 5); nil
	// when there is none.
	Numeric *Flag
}

// Pool is what a refusal of an unknown flag allows: each flag's
// [Flag.Spelling], sorted; nil when the set has no flag.
func (s *Set) Pool() []string {
	var out []string
	for _, f := range s.Flags {
		out = append(out, f.Spelling())
	}
	slices.Sort(out)
	return out
}

// find returns the flag that has name among its names or aliases.
func (s *Set) find(name string) *Flag {
	for _, f := range s.Flags {
		if f.names(name) {
			return f
		}
	}
	return nil
}

// helpWord reports whether name asks for help: one of the Help words no
// flag has.
func (s *Set) helpWord(name string) bool {
	return slices.Contains(s.HelpWords, name) && s.find(name) == nil
}
