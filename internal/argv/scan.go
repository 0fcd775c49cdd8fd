package argv

import (
	"strings"
	"unicode/utf8"
)

// Kind is what an [Item] is.
type Kind uint8

const (
	// Operand is a word that is no flag: it does not start with -, it is
	// "-" alone, it comes after the flags ended, or it is opaque.
	Operand Kind = iota + 1
	// FlagGiven is a flag, with its value when it takes one.
	FlagGiven
	// EndOfFlags is the "--" that ends the flags; the words after it are
	// operands.
	EndOfFlags
	// HelpAsked is one of the set's help words.
	HelpAsked
	// Refused is a word the set cannot read as a flag; Err says why.
	// The scanner has passed it, so a caller that forwards unknown flags
	// may read on.
	Refused
)

// An Item is what a [Scanner] read: an operand, a flag, the "--", a
// help word or a refusal.
type Item struct {
	Kind Kind
	// Index is the index in the scanner's words of the item's word (a
	// flag's own word, not its value's).
	Index int
	// Word is that word as written; the letters of a cluster (-sv) are
	// one item each, with the same Word.
	Word string
	// Flag is the flag given (FlagGiven), or the flag the refusal is
	// about (MissingValue, UnexpectedValue); Name is the name it was
	// given by, completed from a prefix, without =VALUE: "-s" for a
	// letter of -sv, "--max-count" for --max=5.
	Flag *Flag
	Name string
	// Value is the flag's value: attached to its word (Attached), the
	// next word, or a switch's with [Flag.Bool]. HasValue reports that
	// one was written; an Optional flag given without one has its
	// Implied value and HasValue false.
	Value    string
	HasValue bool
	Attached bool
	// Opaque marks an operand, or a flag's value, known only at
	// execution (the static pass).
	Opaque bool
	// Err is a Refused item's refusal.
	Err *Error
}

// A Scanner reads a command line one [Item] at a time with a [Set].
type Scanner struct {
	set    *Set
	args   []string
	opaque []bool
	next   int  // the next word to read
	letter int  // GNU: the byte of args[next] a cluster goes on at; 0 when none
	ended  bool // the flags have ended
}

// Scan returns a scanner of args, the words after the command's name.
func (s *Set) Scan(args []string) *Scanner { return &Scanner{set: s, args: args} }

// ScanOpaque is [Set.Scan] for the static pass: a word whose opaque[i]
// is true is known only at execution, and is never read as a flag or
// "--"; it is an operand, or a flag's value.
func (s *Set) ScanOpaque(args []string, opaque []bool) *Scanner {
	return &Scanner{set: s, args: args, opaque: opaque}
}

// Index is the index of the next word the scanner reads; len(args) at
// the end. In the middle of a cluster (-sv) it is the cluster's.
func (sc *Scanner) Index() int { return sc.next }

// Peek returns the next word, whole, when the scanner is between words
// (not in the middle of a cluster), without reading it.
func (sc *Scanner) Peek() (word string, opaque, ok bool) {
	if sc.letter != 0 || sc.next >= len(sc.args) {
		return "", false, false
	}
	return sc.args[sc.next], sc.isOpaque(sc.next), true
}

// Take reads the next word whole, whatever it is, when the scanner is
// between words: a flag's second value (jq --arg NAME VALUE), a spelling
// the caller reads itself (nice --5).
func (sc *Scanner) Take() (word string, opaque, ok bool) {
	word, opaque, ok = sc.Peek()
	if ok {
		sc.next++
	}
	return word, opaque, ok
}

func (sc *Scanner) isOpaque(i int) bool {
	return sc.opaque != nil && i < len(sc.opaque) && sc.opaque[i]
}

// Next reads the next item; ok is false at the end of the words.
func (sc *Scanner) Next() (it Item, ok bool) {
	if sc.letter != 0 {
		return sc.cluster(), true
	}
	if sc.next >= len(sc.args) {
		return Item{}, false
	}
	i, w := sc.next, sc.args[sc.next]
	if sc.ended || sc.isOpaque(i) || len(w) < 2 || w[0] != '-' {
		sc.next++
		if !sc.set.Interleaved {
			sc.ended = true
		}
		return Item{Kind: Operand, Index: i, Word: w, Opaque: sc.isOpaque(i)}, true
	}
	if w == "--" {
		sc.next++
		sc.ended = true
		return Item{Kind: EndOfFlags, Index: i, Word: w}, true
	}
	switch sc.set.Syntax {
	case GNU:
		return sc.gnu(), true
	case Go:
		return sc.goFlag(), true
	}
	return sc.exact(), true
}

// value gives it, a flag that takes one, its value: the next word.
func (sc *Scanner) value(it Item) Item {
	if sc.next >= len(sc.args) {
		return sc.refuse(it, MissingValue, it.Name, usageOf(it.Name, it.Flag))
	}
	it.Value, it.HasValue, it.Opaque = sc.args[sc.next], true, sc.isOpaque(sc.next)
	sc.next++
	return it
}

// inline gives it the value attached to its word, refusing one a switch
// does not take.
func (sc *Scanner) inline(it Item, value string) Item {
	if it.Flag.Value == "" && !it.Flag.Bool {
		return sc.refuse(it, UnexpectedValue, it.Name, []string{it.Name})
	}
	it.Value, it.HasValue, it.Attached = value, true, true
	return it
}

func (sc *Scanner) refuse(it Item, p Problem, word string, allowed []string) Item {
	it.Kind = Refused
	it.Err = &Error{Command: sc.set.Command, Problem: p, Word: word, Allowed: allowed}
	return it
}

func usageOf(name string, f *Flag) []string { return []string{name + " " + f.Value} }

// exact reads a flag word in the Exact syntax.
func (sc *Scanner) exact() Item {
	s, w := sc.set, sc.args[sc.next]
	it := Item{Kind: FlagGiven, Index: sc.next, Word: w, Name: w}
	sc.next++
	if it.Flag = s.find(w); it.Flag != nil {
		if it.Flag.Value == "" {
			return it
		}
		return sc.value(it)
	}
	if eq := strings.IndexByte(w, '='); eq > 0 && !isShort(w[:eq]) {
		if it.Flag = s.find(w[:eq]); it.Flag != nil {
			it.Name = w[:eq]
			return sc.inline(it, w[eq+1:])
		}
	}
	if s.helpWord(w) {
		return Item{Kind: HelpAsked, Index: it.Index, Word: w}
	}
	if w[1] != '-' {
		var letters []string
		for _, r := range w[1:] {
			f := s.find("-" + string(r))
			if f == nil || f.Value != "" {
				letters = nil
				break
			}
			letters = append(letters, "-"+string(r))
		}
		if letters != nil {
			return sc.refuse(it, ClusteredFlags, w, letters)
		}
		if f := s.find(w[:2]); f != nil && f.Value != "" {
			return sc.refuse(it, GluedValue, w, []string{w[:2], strings.TrimPrefix(w[2:], "=")})
		}
	}
	name := w
	if eq := strings.IndexByte(w, '='); eq > 0 && strings.HasPrefix(w, "--") {
		name = w[:eq]
	}
	return sc.refuse(it, UnknownFlag, name, s.Pool())
}

// gnu reads a flag word in the GNU syntax.
func (sc *Scanner) gnu() Item {
	s, w := sc.set, sc.args[sc.next]
	if s.Numeric != nil && isDigits(w[1:]) {
		sc.next++
		return Item{Kind: FlagGiven, Index: sc.next - 1, Word: w, Flag: s.Numeric, Name: w, Value: w[1:], HasValue: true, Attached: true}
	}
	if !strings.HasPrefix(w, "--") {
		sc.letter = 1
		return sc.cluster()
	}
	it := Item{Kind: FlagGiven, Index: sc.next, Word: w}
	sc.next++
	name, value, hasValue := strings.Cut(w, "=")
	it.Name = name
	if it.Flag = s.find(name); it.Flag == nil {
		if s.helpWord(w) {
			return Item{Kind: HelpAsked, Index: it.Index, Word: w}
		}
		var found []*Flag
		var long []string
		for _, f := range s.Flags {
			for _, n := range append(f.Names[:len(f.Names):len(f.Names)], f.Aliases...) {
				if strings.HasPrefix(n, "--") && strings.HasPrefix(n, name) {
					if len(found) == 0 || found[len(found)-1] != f {
						found = append(found, f)
						long = append(long, n)
					}
					break
				}
			}
		}
		switch len(found) {
		case 0:
			return sc.refuse(it, UnknownFlag, name, s.Pool())
		case 1:
			it.Flag, it.Name = found[0], long[0]
		default:
			return sc.refuse(it, AmbiguousFlag, name, long)
		}
	}
	switch {
	case hasValue:
		return sc.inline(it, value)
	case it.Flag.Value == "":
		return it
	case it.Flag.Optional:
		it.Value = it.Flag.Implied
		return it
	}
	return sc.value(it)
}

// cluster reads the next letter of a GNU cluster: -s, -sv, -n5, -sn 5.
func (sc *Scanner) cluster() Item {
	w := sc.args[sc.next]
	r, size := utf8.DecodeRuneInString(w[sc.letter:])
	at := sc.letter + size
	it := Item{Kind: FlagGiven, Index: sc.next, Word: w, Name: "-" + string(r)}
	if at < len(w) {
		sc.letter = at
	} else {
		sc.letter, sc.next = 0, sc.next+1
	}
	if it.Flag = sc.set.find(it.Name); it.Flag == nil {
		sc.letter, sc.next = 0, it.Index+1
		return sc.refuse(it, UnknownFlag, it.Name, sc.set.Pool())
	}
	if it.Flag.Value == "" {
		return it
	}
	if sc.letter != 0 {
		it.Value, it.HasValue, it.Attached = w[at:], true, true
		sc.letter, sc.next = 0, sc.next+1
		return it
	}
	return sc.value(it)
}

// goFlag reads a flag word as Go's flag package does.
func (sc *Scanner) goFlag() Item {
	s, w := sc.set, sc.args[sc.next]
	it := Item{Kind: FlagGiven, Index: sc.next, Word: w}
	sc.next++
	name := strings.TrimPrefix(w[1:], "-")
	if name == "" || name[0] == '-' || name[0] == '=' {
		return sc.refuse(it, UnknownFlag, w, s.Pool())
	}
	name, value, hasValue := strings.Cut(name, "=")
	for _, n := range []string{"-" + name, "--" + name} {
		if it.Flag = s.find(n); it.Flag != nil {
			it.Name = n
			break
		}
	}
	if it.Flag == nil {
		if s.helpWord("-"+name) || s.helpWord("--"+name) {
			return Item{Kind: HelpAsked, Index: it.Index, Word: w}
		}
		return sc.refuse(it, UnknownFlag, dashed(name), s.Pool())
	}
	switch {
	case hasValue:
		return sc.inline(it, value)
	case it.Flag.Value == "":
		return it
	}
	return sc.value(it)
}

// dashed is a name as the Go syntax's refusals write it: -x for one
// letter, --name otherwise.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
