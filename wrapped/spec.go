package wrapped

import "github.com/shelter-sh/shelter/kernel"

// FlagType is what a flag takes: nothing (a switch), a string or an integer.
type FlagType string

const (
	TypeSwitch FlagType = ""       // no value; written alone
	TypeString FlagType = "string" // any word, or one of the choices
	TypeInt    FlagType = "int"    // a base-10, signed 64-bit integer
)

// Style is how a value flag is rendered into the child's argv.
type Style string

const (
	// StyleDefault renders long spellings as --name=value and one-letter
	// ones as -x value.
	StyleDefault  Style = ""
	StyleEquals   Style = "equals"   // always one word: spelling=value
	StyleSeparate Style = "separate" // always two words: spelling value
)

// Tail says what a verb does with words no positional slot takes.
type Tail string

const (
	TailDeny          Tail = "deny"            // refuse them (the default)
	TailAfterDashDash Tail = "after-dash-dash" // accept them only after the call's own --
	TailForward       Tail = "forward"         // accept them, and unknown flags, anywhere, as written
)

// StdinPolicy says whether a verb reads the call's input.
type StdinPolicy string

const (
	StdinClosed StdinPolicy = "closed" // input is refused (the default)
	StdinPipe   StdinPolicy = "pipe"   // input is streamed to the child
)

// CommandSpec is the declaration of one wrapped command: what YAML decodes
// into and what [New] starts. Its methods set a field and return the spec,
// so a declaration reads as one expression; [CommandSpec.Build] checks it.
type CommandSpec struct {
	name       string
	executable string
	about      string
	lead       []string
	env        []envPin
	pass       []passName
	tty        bool
	reach      reachSpec
	verbs      []*VerbSpec
	root       *VerbSpec
	hints      *kernel.Annotations // nil: none declared

	dir  string // base of relative paths; the YAML file's directory
	pos  pos    // the command's key
	exec pos    // the executable's value
}

type envPin struct {
	name, value string
	pos         pos
}

type passName struct {
	name string
	pos  pos
}

// reachSpec is what a declaration asks of a confined session beyond what
// it gives every program: the network, and further paths to read or
// write.
type reachSpec struct {
	network     bool
	read, write []declPath
}

// declPath is a path of read_paths or write_paths as written.
type declPath struct {
	path string
	pos  pos
}

func addPaths(to []declPath, paths []string) []declPath {
	for _, p := range paths {
		to = append(to, declPath{path: p})
	}
	return to
}

// New starts the declaration of a command called name in the shell, run as
// executable: an absolute path, or a bare name looked up once, by Build,
// in [LoadOptions.Path].
func New(name, executable string) *CommandSpec {
	return &CommandSpec{name: name, executable: executable}
}

// About sets the command's description.
func (c *CommandSpec) About(text string) *CommandSpec { c.about = text; return c }

// Lead sets the words rendered right after the executable.
func (c *CommandSpec) Lead(words ...string) *CommandSpec { c.lead = words; return c }

// Env pins a variable of the child's environment; it wins over the
// session's. Later pins of the same name replace earlier ones.
func (c *CommandSpec) Env(name, value string) *CommandSpec {
	for i := range c.env {
		if c.env[i].name == name {
			c.env[i].value = value
			return c
		}
	}
	c.env = append(c.env, envPin{name: name, value: value})
	return c
}

// PassEnv names variables of the agent's own that the child gets in the
// sandbox profile, where a declared program otherwise sees only the
// session's starting variables (see kernel.Call.ProgramEnv); in the other
// profiles the child already gets the session's exports. A name must be a
// variable name and not one that injects code into a program
// (kernel.InjectionVar): Build refuses those; pin one with
// [CommandSpec.Env] to set it on purpose. Later calls add names.
func (c *CommandSpec) PassEnv(names ...string) *CommandSpec {
	for _, n := range names {
		c.pass = append(c.pass, passName{name: n})
	}
	return c
}

// TTY runs the child on a pseudo-terminal.
func (c *CommandSpec) TTY(on bool) *CommandSpec { c.tty = on; return c }

// Network lets the program use the host's network where the session
// confines its programs (the sandbox profile), which otherwise gives each
// start a network namespace of its own with only loopback: for a program
// that fetches, like go mod download. Where the session does not confine
// its programs it changes nothing. Every verb gets it; to give it to one
// verb only, use [VerbSpec.Network].
func (c *CommandSpec) Network() *CommandSpec { c.reach.network = true; return c }

// ReadPaths names further files and directories the program may read and
// execute, each with everything beneath it, where the session confines its
// programs: beside the system's directories, the session's root and its
// $TMPDIR, which it always may. A relative path is taken from the
// declaration's directory (the YAML file's, or the working directory of
// the process for a Go declaration); Build refuses a path that does not
// exist. Later calls add paths; every verb gets them.
func (c *CommandSpec) ReadPaths(paths ...string) *CommandSpec {
	c.reach.read = addPaths(c.reach.read, paths)
	return c
}

// WritePaths names further files and directories the program may read
// and write, each with everything beneath it, where the session confines
// its programs: a shared module cache, say. Paths are taken as by
// [CommandSpec.ReadPaths].
func (c *CommandSpec) WritePaths(paths ...string) *CommandSpec {
	c.reach.write = addPaths(c.reach.write, paths)
	return c
}

// Verb adds named verbs, in order.
func (c *CommandSpec) Verb(verbs ...*VerbSpec) *CommandSpec {
	c.verbs = append(c.verbs, verbs...)
	return c
}

// Root sets the verb that takes a call no named verb matches; its name is
// ignored.
func (c *CommandSpec) Root(v *VerbSpec) *CommandSpec { c.root = v; return c }

// Name is the command's name as typed in the shell.
func (c *CommandSpec) Name() string { return c.name }

// Annotations sets the hints for clients (MCP tool annotations) of every
// verb that sets none of its own; [Verb.Annotations] says what a verb
// gets when neither does. shelter enforces none of them.
func (c *CommandSpec) Annotations(a kernel.Annotations) *CommandSpec { c.hints = &a; return c }

// VerbSpec declares a verb, or a command's root.
type VerbSpec struct {
	name     string
	about    string
	lead     []string
	flags    []*FlagSpec
	args     []*ArgSpec
	tail     Tail
	stdin    StdinPolicy
	json     bool
	omitName bool
	examples []example
	reach    reachSpec
	hints    *kernel.Annotations // nil: the command's

	pos pos
}

type example struct{ title, line string }

// NewVerb starts the declaration of a verb. For a root, name is ignored.
func NewVerb(name string) *VerbSpec { return &VerbSpec{name: name} }

// About sets the verb's description.
func (v *VerbSpec) About(text string) *VerbSpec { v.about = text; return v }

// Annotations sets the verb's hints for clients (MCP tool annotations),
// in place of its command's ([CommandSpec.Annotations]): a read-only verb
// of a command that changes things says so here.
func (v *VerbSpec) Annotations(a kernel.Annotations) *VerbSpec { v.hints = &a; return v }

// Lead sets the words rendered right after the verb's name.
func (v *VerbSpec) Lead(words ...string) *VerbSpec { v.lead = words; return v }

// Flag adds flags, in order.
func (v *VerbSpec) Flag(flags ...*FlagSpec) *VerbSpec { v.flags = append(v.flags, flags...); return v }

// Arg adds positional arguments, in order.
func (v *VerbSpec) Arg(args ...*ArgSpec) *VerbSpec { v.args = append(v.args, args...); return v }

// Tail sets what the verb does with extra words; the default is [TailDeny].
func (v *VerbSpec) Tail(t Tail) *VerbSpec { v.tail = t; return v }

// Stdin sets the verb's input policy; the default is [StdinClosed].
func (v *VerbSpec) Stdin(p StdinPolicy) *VerbSpec { v.stdin = p; return v }

// JSON declares that the verb prints JSON, which becomes the Result's data.
func (v *VerbSpec) JSON() *VerbSpec { v.json = true; return v }

// OmitName leaves the verb's name out of the rendered argv.
func (v *VerbSpec) OmitName() *VerbSpec { v.omitName = true; return v }

// Network lets the program use the host's network when it runs this
// verb, as [CommandSpec.Network] does for every verb.
func (v *VerbSpec) Network() *VerbSpec { v.reach.network = true; return v }

// ReadPaths adds paths the program may read when it runs this verb, to
// those of [CommandSpec.ReadPaths].
func (v *VerbSpec) ReadPaths(paths ...string) *VerbSpec {
	v.reach.read = addPaths(v.reach.read, paths)
	return v
}

// WritePaths adds paths the program may write when it runs this verb, to
// those of [CommandSpec.WritePaths].
func (v *VerbSpec) WritePaths(paths ...string) *VerbSpec {
	v.reach.write = addPaths(v.reach.write, paths)
	return v
}

// Example adds an example call shown in help.
func (v *VerbSpec) Example(title, line string) *VerbSpec {
	v.examples = append(v.examples, example{title, line})
	return v
}

// FlagSpec declares a flag.
type FlagSpec struct {
	name       string
	typ        FlagType
	aliases    []string
	choices    []string
	repeatable bool
	required   bool
	style      Style
	about      string

	pos pos
}

// Switch declares a flag that takes no value.
func Switch(name string) *FlagSpec { return &FlagSpec{name: name} }

// String declares a flag that takes one word, whatever it looks like.
func String(name string) *FlagSpec { return &FlagSpec{name: name, typ: TypeString} }

// Int declares a flag that takes a base-10, signed 64-bit integer.
func Int(name string) *FlagSpec { return &FlagSpec{name: name, typ: TypeInt} }

// Choice declares a string flag whose value must be one of choices.
func Choice(name string, choices ...string) *FlagSpec {
	return &FlagSpec{name: name, typ: TypeString, choices: choices}
}

// Alias adds other spellings: a one-character alias is written -x, a longer
// one --alias, one that starts with - as written.
func (f *FlagSpec) Alias(names ...string) *FlagSpec {
	f.aliases = append(f.aliases, names...)
	return f
}

// Repeatable lets the flag be given more than once; each use is rendered.
func (f *FlagSpec) Repeatable() *FlagSpec { f.repeatable = true; return f }

// Required refuses a call that does not give the flag.
func (f *FlagSpec) Required() *FlagSpec { f.required = true; return f }

// Style sets how the flag's value is rendered.
func (f *FlagSpec) Style(s Style) *FlagSpec { f.style = s; return f }

// About sets the flag's description.
func (f *FlagSpec) About(text string) *FlagSpec { f.about = text; return f }

// ArgSpec declares a positional argument.
type ArgSpec struct {
	name      string
	many      bool
	required  bool
	pathUnder string
	hold      holdPolicy
	about     string

	pos      pos
	underPos pos
	holdPos  pos
}

// holdPolicy says how a path_under argument reaches the program: as a
// descriptor held beneath its directory, or as the checked path.
type holdPolicy uint8

const (
	holdByProfile holdPolicy = iota // held in the sandbox profile only
	holdAlways
	holdNever
)

// Arg declares a positional argument that takes one word.
func Arg(name string) *ArgSpec { return &ArgSpec{name: name} }

// Many declares a positional argument that takes the rest of the words; it
// must be the last.
func Many(name string) *ArgSpec { return &ArgSpec{name: name, many: true} }

// Required refuses a call that does not give the argument (for Many: at
// least one word).
func (a *ArgSpec) Required() *ArgSpec { a.required = true; return a }

// Under confines the argument to paths inside dir: absolute, relative to
// the declaration's directory (the YAML file's, or the working directory
// of the process for a Go declaration), or [WorkingDir].
func (a *ArgSpec) Under(dir string) *ArgSpec { a.pathUnder = dir; return a }

// WorkingDir, as the directory of [ArgSpec.Under] (path_under: $PWD),
// is the session's working directory when the call is made: a project's
// own scripts, wherever the declaration lives. It is a boundary where
// cd is one, in the sandbox profile, whose sessions cannot leave their
// root; elsewhere the agent may cd anywhere first.
const WorkingDir = "$PWD"

// Hold says how a path_under argument reaches the program. true hands it
// a descriptor of the checked path opened beneath the directory (on Linux,
// /proc/self/fd/N), so that what the program opens is what was checked
// even if the tree changes meanwhile; false hands it the checked path
// itself, which it can print, match and derive names from, but which it
// looks up again on its own. Without Hold the session's profile decides:
// held in the sandbox profile, where path_under is the boundary, the path
// in the others. Build refuses Hold on an argument without [ArgSpec.Under].
func (a *ArgSpec) Hold(on bool) *ArgSpec {
	a.hold = holdNever
	if on {
		a.hold = holdAlways
	}
	return a
}

// About sets the argument's description.
func (a *ArgSpec) About(text string) *ArgSpec { a.about = text; return a }
