package wrapped

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

// LoadOptions configure how declarations are compiled.
type LoadOptions struct {
	// Path is the $PATH value in which a bare executable name is looked up,
	// once, when the declaration is built. Empty means the process's own
	// $PATH.
	Path string
}

// LoadError is a declaration refused at load. Its Error() is
// FILE:LINE:COL: message for a YAML declaration, the message alone for a
// Go one.
type LoadError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *LoadError) Error() string {
	if e.File == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, max(e.Line, 1), max(e.Col, 1), e.Msg)
}

// pos is where a declaration part was written; zero for Go declarations.
type pos struct {
	file      string
	line, col int
}

func (p pos) errorf(format string, args ...any) error {
	return &LoadError{File: p.file, Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...)}
}

// Build checks the declaration and compiles it into a [Command]. Every
// refusal is a [*LoadError] naming the part at fault.
func (c *CommandSpec) Build(opts LoadOptions) (*Command, error) {
	if err := checkName(c.name); err != nil {
		return nil, c.pos.errorf("command %q: %v", c.name, err)
	}
	if len(c.verbs) == 0 && c.root == nil {
		return nil, c.pos.errorf("%s: no verbs and no root; declare at least one", c.name)
	}
	path, err := c.pin(opts)
	if err != nil {
		return nil, err
	}
	cmd := &Command{
		name:   c.name,
		about:  c.about,
		path:   path,
		lead:   slices.Clone(c.lead),
		tty:    c.tty,
		byName: make(map[string]*Verb, len(c.verbs)),
	}
	for _, e := range c.env {
		if e.name == "" || strings.ContainsAny(e.name, "=\x00") {
			return nil, e.pos.errorf("%s: env: %q is not a variable name", c.name, e.name)
		}
		if strings.IndexByte(e.value, 0) >= 0 {
			return nil, e.pos.errorf("%s: env %s: value contains a NUL byte", c.name, e.name)
		}
		cmd.env = append(cmd.env, e.name+"="+e.value)
	}
	for _, p := range c.pass {
		if err := checkPassName(p.name, cmd.pass); err != nil {
			return nil, p.pos.errorf("%s: pass_env: %v", c.name, err)
		}
		cmd.pass = append(cmd.pass, p.name)
	}
	for _, w := range c.lead {
		if strings.IndexByte(w, 0) >= 0 {
			return nil, c.pos.errorf("%s: lead word contains a NUL byte", c.name)
		}
	}
	if cmd.reach, err = c.compileReach(c.name, c.reach); err != nil {
		return nil, err
	}
	for _, vs := range c.verbs {
		if err := checkName(vs.name); err != nil || strings.HasPrefix(vs.name, "-") {
			return nil, vs.pos.errorf("%s: verb %q: a verb name is a word that does not start with -", c.name, vs.name)
		}
		if _, dup := cmd.byName[vs.name]; dup {
			return nil, vs.pos.errorf("%s: verb '%s' declared twice", c.name, vs.name)
		}
		if c.root != nil && vs.name == c.name {
			return nil, vs.pos.errorf("%s: verb '%s' has the command's name, which names the root in schemas", c.name, vs.name)
		}
		v, err := c.compileVerb(cmd, vs, false)
		if err != nil {
			return nil, err
		}
		cmd.verbs = append(cmd.verbs, v)
		cmd.byName[v.name] = v
	}
	if c.root != nil {
		v, err := c.compileVerb(cmd, c.root, true)
		if err != nil {
			return nil, err
		}
		cmd.root = v
	}
	for _, v := range cmd.verbs {
		cmd.sortedVerbs = append(cmd.sortedVerbs, v.name)
	}
	slices.Sort(cmd.sortedVerbs)
	cmd.schema = commandSchema(cmd)
	return cmd, nil
}

// compileReach checks read_paths and write_paths and makes them
// absolute: a relative path is taken from the declaration's directory,
// and a path must exist (Landlock holds what it names when the program
// starts, and would skip it).
func (c *CommandSpec) compileReach(scope string, r reachSpec) (reach, error) {
	out := reach{network: r.network}
	var err error
	if out.read, err = c.reachPaths(scope, "read_paths", r.read); err != nil {
		return out, err
	}
	out.write, err = c.reachPaths(scope, "write_paths", r.write)
	return out, err
}

func (c *CommandSpec) reachPaths(scope, key string, paths []declPath) ([]string, error) {
	var out []string
	for _, p := range paths {
		switch {
		case p.path == "":
			return nil, p.pos.errorf("%s: %s: an empty path; allowed: existing files and directories", scope, key)
		case strings.IndexByte(p.path, 0) >= 0:
			return nil, p.pos.errorf("%s: %s: a path contains a NUL byte", scope, key)
		}
		abs := p.path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(c.baseDir(), abs)
		}
		abs = filepath.Clean(abs)
		_, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, p.pos.errorf("%s: %s: '%s' does not exist; allowed: existing files and directories", scope, key, refusal.Show(abs))
		case err != nil:
			return nil, p.pos.errorf("%s: %s: '%s': %v", scope, key, refusal.Show(abs), unwrapPath(err))
		}
		out = appendNew(out, []string{abs})
	}
	return out, nil
}

// checkName accepts a word usable as a command, verb or argument name.
func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if strings.ContainsAny(name, " \t\n\r\x00=") {
		return errors.New("a name may not contain spaces, '=' or control characters")
	}
	return nil
}

// checkPassName accepts a pass_env entry: a variable name, not listed
// before, that does not inject code into the program. Pins may set an
// injection variable; an agent's value may not reach one.
func checkPassName(name string, before []string) error {
	if !isVarName(name) {
		return fmt.Errorf("'%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", refusal.Show(name))
	}
	if kernel.InjectionVar(name) {
		return fmt.Errorf("'%s' makes the program load or run code it names, so the agent's value may not reach it; pin it under env: to set it on purpose", name)
	}
	if slices.Contains(before, name) {
		return fmt.Errorf("'%s' listed twice", name)
	}
	return nil
}

func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// pin resolves the executable once: an absolute path, a path relative to
// the declaration's directory, or a bare name looked up in opts.Path.
func (c *CommandSpec) pin(opts LoadOptions) (string, error) {
	exe := c.executable
	if exe == "" {
		return "", c.pos.errorf("%s: no executable given", c.name)
	}
	if !strings.Contains(exe, "/") {
		pathList := opts.Path
		if pathList == "" {
			pathList = os.Getenv("PATH")
		}
		p, err := spawn.LookPath(pathList, c.baseDir(), exe)
		if err != nil {
			var le *spawn.LookPathError
			if errors.As(err, &le) && le.Status == 126 {
				return "", c.exec.errorf("%s: executable '%s' found but not runnable: %s", c.name, exe, strings.ToLower(le.Reason))
			}
			return "", c.exec.errorf("%s: executable '%s' not found in PATH", c.name, exe)
		}
		exe = p
	} else if !filepath.IsAbs(exe) {
		exe = filepath.Join(c.baseDir(), exe)
	}
	fi, err := os.Stat(exe)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", c.exec.errorf("%s: executable '%s' does not exist", c.name, exe)
	case err != nil:
		return "", c.exec.errorf("%s: executable '%s': %v", c.name, exe, unwrapPath(err))
	case !fi.Mode().IsRegular():
		return "", c.exec.errorf("%s: executable '%s' is not a regular file", c.name, exe)
	case fi.Mode()&0o111 == 0:
		return "", c.exec.errorf("%s: executable '%s' has no exec bit", c.name, exe)
	}
	return filepath.Clean(exe), nil
}

func (c *CommandSpec) baseDir() string {
	if c.dir != "" {
		return c.dir
	}
	wd, _ := os.Getwd()
	return wd
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (c *CommandSpec) compileVerb(cmd *Command, vs *VerbSpec, root bool) (*Verb, error) {
	v := &Verb{
		cmd:      cmd,
		name:     vs.name,
		about:    vs.about,
		root:     root,
		lead:     slices.Clone(vs.lead),
		tail:     vs.tail,
		stdin:    vs.stdin,
		json:     vs.json,
		omitName: vs.omitName,
		examples: slices.Clone(vs.examples),
	}
	v.scope = cmd.name
	if root {
		v.name = ""
	} else {
		v.scope = cmd.name + " " + vs.name
	}
	own, err := c.compileReach(v.scope, vs.reach)
	if err != nil {
		return nil, err
	}
	v.reach = cmd.reach.merge(own)
	switch {
	case vs.hints != nil:
		v.hints = *vs.hints
	case c.hints != nil:
		v.hints = *c.hints
	default:
		v.hints = kernel.Annotations{Destructive: true, OpenWorld: true}
	}
	switch v.tail {
	case "":
		v.tail = TailDeny
	case TailDeny, TailAfterDashDash, TailForward:
	default:
		return nil, vs.pos.errorf("%s: tail '%s' is not one of deny, after-dash-dash, forward", v.scope, v.tail)
	}
	switch v.stdin {
	case "":
		v.stdin = StdinClosed
	case StdinClosed, StdinPipe:
	default:
		return nil, vs.pos.errorf("%s: stdin '%s' is not one of closed, pipe", v.scope, v.stdin)
	}
	props := map[string]bool{}
	spelled := map[string]*Flag{}
	v.set = &argv.Set{Command: v.scope, Syntax: argv.Exact, Interleaved: true, HelpWords: []string{"--help", "-h"}}
	for _, spec := range vs.flags {
		f, err := compileFlag(v, spec, len(v.flags))
		if err != nil {
			return nil, err
		}
		for _, sp := range f.spellings {
			if prev, dup := spelled[sp]; dup {
				return nil, spec.pos.errorf("%s: spelling '%s' used twice (flags '%s' and '%s')", v.scope, sp, prev.name, f.name)
			}
			spelled[sp] = f
		}
		v.set.Flags = append(v.set.Flags, f.arg)
		if props[f.prop] {
			return nil, spec.pos.errorf("%s: flag '%s': another flag has the same name without dashes", v.scope, f.name)
		}
		props[f.prop] = true
		v.flags = append(v.flags, f)
	}
	optional := ""
	for i, as := range vs.args {
		if err := checkName(as.name); err != nil {
			return nil, as.pos.errorf("%s: argument %q: %v", v.scope, as.name, err)
		}
		if props[as.name] {
			return nil, as.pos.errorf("%s: argument '%s' has the name of a flag or another argument", v.scope, as.name)
		}
		props[as.name] = true
		if as.many && i != len(vs.args)-1 {
			return nil, as.pos.errorf("%s: argument '%s' takes the rest (many) but is not the last", v.scope, as.name)
		}
		if as.required && optional != "" {
			return nil, as.pos.errorf("%s: required argument '%s' comes after the optional '%s'", v.scope, as.name, optional)
		}
		if !as.required {
			optional = as.name
		}
		a := &Positional{name: as.name, many: as.many, required: as.required, hold: as.hold, about: as.about}
		if as.hold != holdByProfile && as.pathUnder == "" {
			return nil, as.holdPos.errorf("%s: argument '%s': hold without path_under; only a path_under argument is held", v.scope, as.name)
		}
		if as.pathUnder == WorkingDir {
			a.under = WorkingDir
		} else if as.pathUnder != "" {
			dir := as.pathUnder
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(c.baseDir(), dir)
			}
			dir = filepath.Clean(dir)
			fi, err := os.Stat(dir)
			if err != nil {
				return nil, as.underPos.errorf("%s: argument '%s': path_under directory '%s' does not exist", v.scope, as.name, dir)
			}
			if !fi.IsDir() {
				return nil, as.underPos.errorf("%s: argument '%s': path_under '%s' is not a directory", v.scope, as.name, dir)
			}
			a.under = dir
		}
		v.args = append(v.args, a)
	}
	if v.tail != TailDeny && props["args"] {
		return nil, vs.pos.errorf("%s: a flag or argument named 'args' collides with the extra words of tail %s in the schema", v.scope, v.tail)
	}
	if len(v.flags) > 64 {
		return nil, vs.pos.errorf("%s: more than 64 flags", v.scope)
	}
	for _, w := range v.lead {
		if strings.IndexByte(w, 0) >= 0 {
			return nil, vs.pos.errorf("%s: lead word contains a NUL byte", v.scope)
		}
	}
	v.prefix = append(v.prefix, cmd.path)
	v.prefix = append(v.prefix, cmd.lead...)
	if !root && !v.omitName {
		v.prefix = append(v.prefix, v.name)
	}
	v.prefix = append(v.prefix, v.lead...)
	v.schema = verbSchema(v)
	return v, nil
}

func compileFlag(v *Verb, spec *FlagSpec, index int) (*Flag, error) {
	if err := checkFlagName(spec.name); err != nil {
		return nil, spec.pos.errorf("%s: flag %q: %v", v.scope, spec.name, err)
	}
	f := &Flag{
		index:      index,
		name:       spec.name,
		typ:        spec.typ,
		choices:    slices.Clone(spec.choices),
		repeatable: spec.repeatable,
		required:   spec.required,
		style:      spec.style,
		about:      spec.about,
	}
	f.canonical = spelling(spec.name)
	f.prop = strings.TrimLeft(spec.name, "-")
	switch f.typ {
	case TypeSwitch, TypeString, TypeInt:
	default:
		return nil, spec.pos.errorf("%s: flag '%s': type '%s' is not one of string, int (no type: a switch)", v.scope, f.name, f.typ)
	}
	if len(f.choices) > 0 {
		switch f.typ {
		case TypeSwitch:
			return nil, spec.pos.errorf("%s: flag '%s': choices on a switch", v.scope, f.name)
		case TypeInt:
			return nil, spec.pos.errorf("%s: flag '%s': choices on an int flag; choices take strings", v.scope, f.name)
		}
	}
	switch f.style {
	case StyleDefault, StyleEquals, StyleSeparate:
	default:
		return nil, spec.pos.errorf("%s: flag '%s': style '%s' is not one of equals, separate", v.scope, f.name, f.style)
	}
	if f.typ == TypeSwitch && f.style != StyleDefault {
		return nil, spec.pos.errorf("%s: flag '%s': style on a switch", v.scope, f.name)
	}
	if f.typ == TypeSwitch && f.required {
		return nil, spec.pos.errorf("%s: flag '%s': a switch cannot be required", v.scope, f.name)
	}
	f.spellings = []string{f.canonical}
	for _, a := range spec.aliases {
		if err := checkFlagName(a); err != nil {
			return nil, spec.pos.errorf("%s: flag '%s': alias %q: %v", v.scope, f.name, a, err)
		}
		sp := spelling(a)
		if slices.Contains(f.spellings, sp) {
			return nil, spec.pos.errorf("%s: spelling '%s' used twice (flags '%s' and '%s')", v.scope, sp, f.name, f.name)
		}
		f.spellings = append(f.spellings, sp)
	}
	switch f.style {
	case StyleEquals:
		f.separate = false
	case StyleSeparate:
		f.separate = true
	default:
		f.separate = isShort(f.canonical)
	}
	f.arg = &argv.Flag{Names: f.spellings, About: f.about, Required: f.required, Repeatable: f.repeatable}
	switch {
	case len(f.choices) > 0:
		f.arg.Value = strings.Join(f.choices, "|")
	case f.typ == TypeInt:
		f.arg.Value = "N"
	case f.typ == TypeString:
		f.arg.Value = "VALUE"
	}
	return f, nil
}

func checkFlagName(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if strings.Trim(name, "-") == "" {
		return errors.New("a flag name needs a character other than -")
	}
	if strings.HasPrefix(name, "---") {
		return errors.New("a flag name starts with at most two dashes")
	}
	return nil
}

// spelling is how a flag name is written in a call: -x for one character,
// --name for more, as written when it already starts with -.
func spelling(name string) string {
	switch {
	case strings.HasPrefix(name, "-"):
		return name
	case len(name) == 1:
		return "-" + name
	}
	return "--" + name
}

// isShort reports whether a spelling is a one-letter one (-x).
func isShort(sp string) bool { return len(sp) == 2 && sp[0] == '-' && sp[1] != '-' }
