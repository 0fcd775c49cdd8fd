package wrapped

import (
	"slices"
	"strconv"
	"strings"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/kernel"
)

// call is one call being parsed, checked and rendered: the words after the
// command's name and, in the static pass, which of them are opaque.
type call struct {
	cmd    *Command
	args   []string
	opaque []bool // nil at execution: every word is literal
	dir    string // the session's working directory; "" in the static pass
	static bool
	verb   *Verb // already chosen (JSON calls): args hold no verb word
}

// underRef is an argv word that must lie under a directory.
type underRef struct {
	argv int
	arg  *Positional
}

func (p *call) isOpaque(i int) bool { return p.opaque != nil && p.opaque[i] }

// run parses, checks and renders the call into a [Plan]. It is the one
// path of shell calls, JSON calls and the static pass. In the static pass
// a call with an opaque word is uncertain: its refusals come back wrapped
// by kernel.Uncertain, required parts are not checked, and a call whose
// verb is opaque is not judged at all (nil, nil).
func (p *call) run() (*Plan, error) {
	c := p.cmd
	uncertain := false
	for _, o := range p.opaque {
		uncertain = uncertain || o
	}
	refuse := func(err error) error {
		if uncertain {
			return kernel.Uncertain(err)
		}
		return err
	}

	// 1. The verb.
	args := p.args
	v, i, verbErr := p.chooseVerb()
	if v == nil && verbErr == nil {
		return nil, nil
	}
	scope := c.name
	if v != nil {
		scope = v.scope
	}
	for j, a := range args {
		if !p.isOpaque(j) && strings.IndexByte(a, 0) >= 0 {
			return nil, refuse(&NULError{Scope: scope, Index: j + 1})
		}
	}
	if verbErr != nil {
		if p.helpAhead(0, nil) {
			return &Plan{Help: true}, nil
		}
		return nil, refuse(verbErr)
	}

	// 2–5. Flags, positionals, --, extra words; rendered as they come.
	out := make([]string, len(v.prefix), len(v.prefix)+2*len(args))
	copy(out, v.prefix)
	var (
		seen    uint64 // flags given, by index
		dashed  bool   // the call's own -- has been passed
		slot    int    // the positional slot the next word fills
		many    int    // words given to a many slot
		badInt  error  // the first int refusal
		badPick error  // the first choices refusal
		under   []underRef
	)
	fail := func(err error) (*Plan, error) {
		if !dashed && p.helpAhead(i, v) {
			return &Plan{Verb: v, Help: true}, nil
		}
		return nil, refuse(err)
	}
	from := i
	sc := p.scan(from, v)
	for {
		it, ok := sc.Next()
		if !ok {
			break
		}
		i = from + it.Index
		w := it.Word
		switch it.Kind {
		case argv.EndOfFlags:
			dashed = true
			out = append(out, w)
			continue
		case argv.HelpAsked:
			return &Plan{Verb: v, Help: true}, nil
		case argv.Refused:
			if it.Flag == nil && v.tail == TailForward {
				out = append(out, w)
				continue
			}
		}
		if it.Flag != nil {
			f := v.flag(it.Flag)
			if seen&(1<<f.index) != 0 && !f.repeatable {
				return fail(&RepeatedFlagError{Scope: v.scope, Flag: f.canonical})
			}
			seen |= 1 << f.index
		}
		switch it.Kind {
		case argv.Refused:
			return fail(v.refusal(it))
		case argv.FlagGiven:
			f := v.flag(it.Flag)
			if f.typ == TypeSwitch {
				out = append(out, f.canonical)
				continue
			}
			switch {
			case it.Opaque:
			case f.typ == TypeInt && badInt == nil:
				badInt = v.checkInt(f, it.Value)
			case len(f.choices) > 0 && badPick == nil:
				badPick = v.checkChoice(f, it.Value)
			}
			out = f.render(out, w, it.Value, it.Attached)
			continue
		}
		op := it.Opaque
		if slot < len(v.args) {
			a := v.args[slot]
			if a.under != "" && !op {
				under = append(under, underRef{argv: len(out), arg: a})
			}
			out = append(out, w)
			if a.many {
				many++
			} else {
				slot++
			}
			continue
		}
		switch {
		case op:
			// Never judged: it may expand to flags, to nothing, to --.
		case v.tail == TailDeny:
			return fail(&ExtraArgumentError{Scope: v.scope, Word: w})
		case v.tail == TailAfterDashDash && !dashed:
			return fail(&ExtraArgumentError{Scope: v.scope, Word: w, AfterDashDash: true})
		}
		out = append(out, w)
	}

	// 6. Checks: int, then choices, then required flags and arguments.
	if badInt != nil {
		return nil, refuse(badInt)
	}
	if badPick != nil {
		return nil, refuse(badPick)
	}
	if !uncertain {
		for _, f := range v.flags {
			if f.required && seen&(1<<f.index) == 0 {
				return nil, &RequiredFlagError{Scope: v.scope, Flag: f.canonical}
			}
		}
		for j, a := range v.args {
			given := j < slot || a.many && j == slot && many > 0
			if a.required && !given {
				return nil, &RequiredArgumentError{Scope: v.scope, Name: a.name}
			}
		}
	}
	var checked []checkedPath
	for _, u := range under {
		w := out[u.argv]
		if p.static && (!isAbs(w) || u.arg.under == WorkingDir) {
			continue // relative to a directory the script may still change
		}
		dir := u.arg.under
		if dir == WorkingDir {
			dir = p.dir
		}
		resolved, realRoot, err := resolveUnder(p.dir, w, dir)
		if err != nil {
			return nil, refuse(&OutsidePathError{Scope: v.scope, Name: u.arg.name, Dir: dir, Value: w})
		}
		out[u.argv] = resolved
		checked = append(checked, checkedPath{argv: u.argv, root: realRoot, dir: dir, value: w, arg: u.arg, scope: v.scope})
	}
	return &Plan{Verb: v, Path: c.path, Argv: out, under: checked}, nil
}

// chooseVerb is step 1: the verb that takes the call, and the index of the
// first word after the verb's name. When no verb takes the call, v is nil
// and err the refusal; when the first word is opaque (the static pass), v
// and err are both nil: the call cannot be judged.
func (p *call) chooseVerb() (v *Verb, next int, err error) {
	c, args := p.cmd, p.args
	switch {
	case p.verb != nil:
		return p.verb, 0, nil
	case len(c.verbs) == 0:
		return c.root, 0, nil
	case len(args) == 0 || !p.isOpaque(0) && strings.HasPrefix(args[0], "-"):
		if c.root == nil {
			return nil, 0, &MissingVerbError{Command: c.name, Allowed: c.verbNames()}
		}
		return c.root, 0, nil
	case p.isOpaque(0):
		return nil, 0, nil
	}
	if v := c.byName[args[0]]; v != nil {
		return v, 1, nil
	}
	// A root that takes no word but flags cannot take this one either:
	// the agent meant a verb (git push), and the refusal names them.
	if c.root == nil || len(c.root.args) == 0 && c.root.tail != TailForward {
		return nil, 0, &UnknownVerbError{Command: c.name, Verb: args[0], Allowed: c.verbNames()}
	}
	return c.root, 0, nil
}

// scan reads the call's words from index from on with v's grammar.
func (p *call) scan(from int, v *Verb) *argv.Scanner {
	var opaque []bool
	if p.opaque != nil {
		opaque = p.opaque[from:]
	}
	return v.set.ScanOpaque(p.args[from:], opaque)
}

// refusal is the typed refusal of a word v's grammar refused.
func (v *Verb) refusal(it argv.Item) error {
	e := it.Err
	switch e.Problem {
	case argv.MissingValue:
		return &MissingValueError{Scope: v.scope, Flag: e.Word, Usage: e.Allowed[0]}
	case argv.UnexpectedValue:
		return &UnexpectedValueError{Scope: v.scope, Flag: e.Word}
	case argv.ClusteredFlags:
		return &ClusteredFlagsError{Scope: v.scope, Word: e.Word, Flags: e.Allowed}
	case argv.GluedValue:
		return &GluedValueError{Scope: v.scope, Word: e.Word, Flag: e.Allowed[0], Value: e.Allowed[1]}
	}
	return &UnknownFlagError{Scope: v.scope, Flag: e.Word, Allowed: e.Allowed}
}

// checkInt refuses a value that is not a base-10, signed 64-bit integer.
func (v *Verb) checkInt(f *Flag, value string) error {
	if _, err := strconv.ParseInt(value, 10, 64); err != nil {
		return &NotIntegerError{Scope: v.scope, Flag: f.canonical, Value: value}
	}
	return nil
}

// checkChoice refuses a value that is not one of the flag's choices.
func (v *Verb) checkChoice(f *Flag, value string) error {
	if slices.Contains(f.choices, value) {
		return nil
	}
	return &NotChoiceError{Scope: v.scope, Flag: f.canonical, Choices: slices.Clone(f.choices), Value: value}
}

// render appends a value flag in its declared spelling. The word as
// written is reused when it already is the rendering.
func (f *Flag) render(argv []string, w, value string, inline bool) []string {
	if f.separate {
		return append(argv, f.canonical, value)
	}
	if inline && len(w) == len(f.canonical)+1+len(value) && strings.HasPrefix(w, f.canonical) {
		return append(argv, w)
	}
	return append(argv, f.canonical+"="+value)
}

// helpAhead reports whether the words from index i on, which come before
// the call's --, ask for help: a --help or -h that v does not declare and
// that is not the value of one of v's value flags. With no verb (an unknown
// or missing one) every --help or -h before a -- counts.
func (p *call) helpAhead(i int, v *Verb) bool {
	if v == nil {
		for ; i < len(p.args); i++ {
			switch w := p.args[i]; {
			case p.isOpaque(i):
			case w == "--":
				return false
			case w == "--help" || w == "-h":
				return true
			}
		}
		return false
	}
	sc := p.scan(i, v)
	for {
		it, ok := sc.Next()
		switch {
		case !ok || it.Kind == argv.EndOfFlags:
			return false
		case it.Kind == argv.HelpAsked:
			return true
		}
	}
}

// verbNames is the pool of a verb refusal: the named verbs, sorted, in a
// slice the refusal owns.
func (c *Command) verbNames() []string { return slices.Clone(c.sortedVerbs) }
