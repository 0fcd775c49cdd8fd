package wrapped

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

// Command is a compiled wrapped command: a kernel.Tool of kind wrapped that
// also implements kernel.StaticChecker and kernel.Helper. It is immutable
// and safe for concurrent use.
type Command struct {
	name, about string
	path        string   // the pinned executable
	lead        []string // words after the executable
	env         []string // pins, NAME=VALUE
	pass        []string // pass_env names
	tty         bool
	reach       reach   // the command's own; each verb adds its own
	verbs       []*Verb // named verbs, declared order
	byName      map[string]*Verb
	root        *Verb
	sortedVerbs []string // the named verbs' names, sorted: a refusal's pool
	schema      json.RawMessage
}

var (
	_ kernel.Tool          = (*Command)(nil)
	_ kernel.StaticChecker = (*Command)(nil)
	_ kernel.Helper        = (*Command)(nil)
)

// Name is the command's name as typed in the shell.
func (c *Command) Name() string { return c.name }

// Kind is kernel.Wrapped.
func (c *Command) Kind() kernel.Kind { return kernel.Wrapped }

// Description is the declaration's about text.
func (c *Command) Description() string { return c.about }

// InputSchema describes every verb at once: an object with exactly one
// property, named after the verb (the root under the command's own name),
// whose value is that verb's [Verb.Schema]. {"log": {"max-count": 5}} is a
// call of git log.
func (c *Command) InputSchema() json.RawMessage { return slices.Clone(c.schema) }

// Executable is the pinned path of the program.
func (c *Command) Executable() string { return c.path }

// Env returns the pinned variables, NAME=VALUE each, in declared order.
func (c *Command) Env() []string { return slices.Clone(c.env) }

// PassEnv returns the names of the agent's variables the program gets in
// the sandbox profile, in declared order.
func (c *Command) PassEnv() []string { return slices.Clone(c.pass) }

// Network reports whether the declaration gives every verb the host's
// network (see [CommandSpec.Network]).
func (c *Command) Network() bool { return c.reach.network }

// ReadPaths returns the absolute paths every verb may read besides the
// session's (see [CommandSpec.ReadPaths]), in declared order.
func (c *Command) ReadPaths() []string { return slices.Clone(c.reach.read) }

// WritePaths returns the absolute paths every verb may write besides the
// session's (see [CommandSpec.WritePaths]), in declared order.
func (c *Command) WritePaths() []string { return slices.Clone(c.reach.write) }

// Verbs returns the named verbs in declared order, then the root when one
// is declared.
func (c *Command) Verbs() []*Verb {
	out := slices.Clone(c.verbs)
	if c.root != nil {
		out = append(out, c.root)
	}
	return out
}

// Verb returns the named verb, or the root for "".
func (c *Command) Verb(name string) (*Verb, bool) {
	if name == "" {
		return c.root, c.root != nil
	}
	v, ok := c.byName[name]
	return v, ok
}

// childEnv is the environment of a declared program (the call's
// ProgramEnv with pass_env) with the pins applied: a pinned name replaces
// what that has, an injection variable included.
func (c *Command) childEnv(call *kernel.Call) []string {
	base := call.ProgramEnv(c.pass)
	if len(c.env) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(c.env))
	for _, kv := range base {
		if !c.pins(kv) {
			out = append(out, kv)
		}
	}
	return append(out, c.env...)
}

func (c *Command) pins(kv string) bool {
	for _, p := range c.env {
		n := strings.IndexByte(p, '=')
		if len(kv) > n && kv[n] == '=' && kv[:n] == p[:n] {
			return true
		}
	}
	return false
}

// Verb is one verb of a [Command], or its root.
type Verb struct {
	cmd      *Command
	name     string // "" for the root
	scope    string // "git log", or "git" for the root
	about    string
	root     bool
	lead     []string
	flags    []*Flag
	set      *argv.Set // the flags' grammar (argv.Exact), help and pool
	args     []*Positional
	tail     Tail
	stdin    StdinPolicy
	json     bool
	omitName bool
	examples []example
	reach    reach // the command's and the verb's own
	hints    kernel.Annotations
	prefix   []string // executable, command lead, name, verb lead
	schema   json.RawMessage
}

// Name is the verb's name; "" for the root.
func (v *Verb) Name() string { return v.name }

// Title is the verb as typed in the shell: "git log", or "git" for the root.
func (v *Verb) Title() string { return v.scope }

// Annotations are the verb's hints for clients (MCP tool annotations):
// its own ([VerbSpec.Annotations]), else its command's
// ([CommandSpec.Annotations]), each hint not declared there false. A
// verb whose command declares none either gets the cautious ones: not
// read-only, destructive, not idempotent, open world. shelter enforces
// none of them.
func (v *Verb) Annotations() kernel.Annotations { return v.hints }

// IsRoot reports whether this is the command's root.
func (v *Verb) IsRoot() bool { return v.root }

// About is the verb's description.
func (v *Verb) About() string { return v.about }

// Flags returns the verb's flags in declared order.
func (v *Verb) Flags() []*Flag { return slices.Clone(v.flags) }

// Positionals returns the verb's positional arguments in declared order.
func (v *Verb) Positionals() []*Positional { return slices.Clone(v.args) }

// Tail is the verb's policy for extra words.
func (v *Verb) Tail() Tail { return v.tail }

// Stdin is the verb's input policy.
func (v *Verb) Stdin() StdinPolicy { return v.stdin }

// JSON reports whether the verb's output is JSON.
func (v *Verb) JSON() bool { return v.json }

// Network reports whether the program has the host's network when it
// runs this verb in a confined session: the command or the verb asked
// for it.
func (v *Verb) Network() bool { return v.reach.network }

// ReadPaths returns the absolute paths the program may read when it runs
// this verb in a confined session besides the session's: the command's,
// then the verb's.
func (v *Verb) ReadPaths() []string { return slices.Clone(v.reach.read) }

// WritePaths returns the absolute paths the program may write when it
// runs this verb in a confined session besides the session's: the
// command's, then the verb's.
func (v *Verb) WritePaths() []string { return slices.Clone(v.reach.write) }

// Schema is the JSON Schema object of the verb's JSON input: switches are
// booleans, int flags integers, choices enums, repeatable flags arrays, a
// one-word argument a string, a many argument an array of strings, and an
// "args" array of extra words for the after-dash-dash and forward tails.
func (v *Verb) Schema() json.RawMessage { return slices.Clone(v.schema) }

// reach is what a declared program may reach in a confined session
// beyond what the session gives every program; paths are absolute.
type reach struct {
	network     bool
	read, write []string
}

// merge is r widened by what more asks.
func (r reach) merge(more reach) reach {
	return reach{
		network: r.network || more.network,
		read:    appendNew(slices.Clone(r.read), more.read),
		write:   appendNew(slices.Clone(r.write), more.write),
	}
}

// confinement is what Run asks of the session's hold for the program; nil
// when the declaration asks for nothing more.
func (r reach) confinement() *spawn.Confinement {
	if !r.network && len(r.read) == 0 && len(r.write) == 0 {
		return nil
	}
	return &spawn.Confinement{Network: r.network, Read: slices.Clone(r.read), Write: slices.Clone(r.write)}
}

// appendNew appends the paths of more that to does not hold yet.
func appendNew(to, more []string) []string {
	for _, p := range more {
		if !slices.Contains(to, p) {
			to = append(to, p)
		}
	}
	return to
}

// Flag is one declared flag of a [Verb].
type Flag struct {
	index      int
	name       string
	prop       string // the name without leading dashes: its schema property
	canonical  string // the declared spelling rendered into argv
	spellings  []string
	typ        FlagType
	choices    []string
	repeatable bool
	required   bool
	style      Style
	separate   bool // value rendered as its own word
	about      string
	arg        *argv.Flag // how calls name it and help shows it
}

// Name is the flag's declared name.
func (f *Flag) Name() string { return f.name }

// Property is the flag's name in the verb's JSON Schema: the name without
// leading dashes.
func (f *Flag) Property() string { return f.prop }

// Spellings are the words that name the flag in a call, the declared
// spelling first.
func (f *Flag) Spellings() []string { return slices.Clone(f.spellings) }

// Type is what the flag takes.
func (f *Flag) Type() FlagType { return f.typ }

// Choices are the allowed values, when declared.
func (f *Flag) Choices() []string { return slices.Clone(f.choices) }

// Repeatable reports whether the flag may be given more than once.
func (f *Flag) Repeatable() bool { return f.repeatable }

// Required reports whether a call must give the flag.
func (f *Flag) Required() bool { return f.required }

// About is the flag's description.
func (f *Flag) About() string { return f.about }

// flag is the declared flag a of v.set describes.
func (v *Verb) flag(a *argv.Flag) *Flag {
	for _, f := range v.flags {
		if f.arg == a {
			return f
		}
	}
	panic("wrapped: " + v.scope + ": a flag of another verb")
}

// Positional is one declared positional argument of a [Verb].
type Positional struct {
	name     string
	many     bool
	required bool
	under    string // absolute path_under directory, or ""
	hold     holdPolicy
	about    string
}

// Name is the argument's name.
func (a *Positional) Name() string { return a.name }

// Many reports whether the argument takes the rest of the words.
func (a *Positional) Many() bool { return a.many }

// Required reports whether a call must give the argument.
func (a *Positional) Required() bool { return a.required }

// PathUnder is the directory the argument must lie in, [WorkingDir], or
// "".
func (a *Positional) PathUnder() string { return a.under }

// underText names the directory the argument must lie in, for help and
// schemas.
func (a *Positional) underText() string {
	if a.under == WorkingDir {
		return "the working directory"
	}
	return a.under
}

// Hold reports whether a path_under argument reaches the program held
// as a descriptor (see [ArgSpec.Hold]), and whether the declaration said
// so; when it did not, the profile decides.
func (a *Positional) Hold() (hold, declared bool) {
	return a.hold == holdAlways, a.hold != holdByProfile
}

// held reports whether the argument is handed over as a descriptor in a
// session that is confined (the sandbox profile) or not.
func (a *Positional) held(confined bool) bool {
	switch a.hold {
	case holdAlways:
		return true
	case holdNever:
		return false
	}
	return confined
}

// About is the argument's description.
func (a *Positional) About() string { return a.about }
