package wrapped

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/internal/toolfile"
)

// LoadFile reads a tools file whose top level is a mapping with a
// commands: key (wrapped commands) and possibly a tools: key (harness
// tools, which LoadFile skips; package harness reads them). Any other
// top-level key is an error. Errors are [*LoadError]s: FILE:LINE:COL:
// message.
func LoadFile(path string, opts LoadOptions) ([]*Command, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &LoadError{File: path, Line: 1, Col: 1, Msg: fmt.Sprint(unwrapPath(err))}
	}
	return loadBytes(path, data, opts)
}

func loadBytes(path string, data []byte, opts LoadOptions) ([]*Command, error) {
	sections, err := toolfile.Split(path, data)
	if err != nil {
		var te *toolfile.Error
		if errors.As(err, &te) {
			return nil, &LoadError{File: te.File, Line: te.Line, Col: te.Col, Msg: te.Msg}
		}
		return nil, err
	}
	if sections.Commands == nil {
		return nil, nil
	}
	return DecodeYAML(path, sections.Commands, opts)
}

// DecodeYAML decodes and builds the wrapped commands of a tools file:
// commands is the value node of its top-level commands: key, a mapping from
// command names to declarations. filename names the file in errors; its
// directory is the base of relative paths (path_under, an executable
// written with a slash). Unknown keys anywhere are errors; mappings keep
// their written order. Errors are [*LoadError]s: FILE:LINE:COL: message.
func DecodeYAML(filename string, commands *yaml.Node, opts LoadOptions) ([]*Command, error) {
	dir, err := filepath.Abs(filepath.Dir(filename))
	if err != nil {
		return nil, &LoadError{File: filename, Line: 1, Col: 1, Msg: err.Error()}
	}
	d := &decoder{file: filename, dir: dir}
	var out []*Command
	seen := map[string]bool{}
	err = d.entries(commands, "commands", false, func(name string, k, v *yaml.Node) error {
		if seen[name] {
			return d.errf(k, "command '%s' declared twice", refusal.Show(name))
		}
		seen[name] = true
		spec, err := d.command(name, k, v)
		if err != nil {
			return err
		}
		cmd, err := spec.Build(opts)
		if err != nil {
			return err
		}
		out = append(out, cmd)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (d *decoder) command(name string, key, n *yaml.Node) (*CommandSpec, error) {
	c := New(name, "")
	c.dir, c.pos, c.exec = d.dir, d.pos(key), d.pos(key)
	err := d.mapping(n, "command '"+name+"'", func(k string, kn, v *yaml.Node) error {
		var err error
		switch k {
		case "executable":
			c.executable, err = d.str(v, "executable")
			c.exec = d.pos(v)
		case "about":
			c.about, err = d.str(v, "about")
		case "lead":
			c.lead, err = d.strs(v, "lead", false)
		case "env":
			err = d.mapping(v, "env", func(name string, kn, vn *yaml.Node) error {
				value, err := d.str(vn, "env "+name)
				c.env = append(c.env, envPin{name: name, value: value, pos: d.pos(kn)})
				return err
			})
		case "pass_env":
			err = d.passEnv(c, v)
		case "tty":
			c.tty, err = d.boolean(v, "tty")
		case "network", "read_paths", "write_paths":
			err = d.reach(name, &c.reach, k, v)
		case "verbs":
			names := map[string]bool{}
			err = d.entries(v, "verbs", false, func(vname string, kn, vn *yaml.Node) error {
				if names[vname] {
					return d.errf(kn, "%s: verb '%s' declared twice", name, refusal.Show(vname))
				}
				names[vname] = true
				vs, err := d.verb(name+" "+vname, vname, kn, vn)
				c.verbs = append(c.verbs, vs)
				return err
			})
		case "root":
			c.root, err = d.verb(name, "", kn, v)
		case "annotations":
			c.hints, err = d.annotations(name, v)
		default:
			err = d.unknownKey(kn, "command '"+name+"'", "about, annotations, env, executable, lead, network, pass_env, read_paths, root, tty, verbs, write_paths")
		}
		return err
	})
	return c, err
}

// passEnv decodes pass_env: a list of variable names, each keeping its
// position for Build's refusals.
func (d *decoder) passEnv(c *CommandSpec, n *yaml.Node) error {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, "%s: pass_env must be a list of variable names", c.name)
	}
	for _, item := range n.Content {
		if err := d.count(); err != nil {
			return err
		}
		at := orNode(deref(item), n)
		if at.Kind != yaml.ScalarNode || isNull(at) {
			return d.errf(at, "%s: pass_env must be a list of variable names", c.name)
		}
		c.pass = append(c.pass, passName{name: at.Value, pos: d.pos(at)})
	}
	return nil
}

// reach decodes network, read_paths or write_paths of a command or a
// verb; Build checks the paths.
func (d *decoder) reach(scope string, r *reachSpec, key string, n *yaml.Node) error {
	if key == "network" {
		var on bool
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.ScalarNode {
			return d.errf(n, "%s: network must be true or false; got a %s", scope, kindName(n))
		}
		if n.Tag != "!!bool" || n.Decode(&on) != nil {
			return d.errf(n, "%s: network must be true or false; got '%s'", scope, refusal.Show(n.Value))
		}
		r.network = on
		return nil
	}
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, "%s: %s must be a list of paths", scope, key)
	}
	for _, item := range n.Content {
		if err := d.count(); err != nil {
			return err
		}
		at := orNode(deref(item), n)
		if at.Kind != yaml.ScalarNode || isNull(at) {
			return d.errf(at, "%s: %s must be a list of paths", scope, key)
		}
		p := declPath{path: at.Value, pos: d.pos(at)}
		if key == "read_paths" {
			r.read = append(r.read, p)
		} else {
			r.write = append(r.write, p)
		}
	}
	return nil
}

func (d *decoder) verb(scope, name string, key, n *yaml.Node) (*VerbSpec, error) {
	vs := NewVerb(name)
	vs.pos = d.pos(key)
	err := d.mapping(n, scope, func(k string, kn, v *yaml.Node) error {
		var err error
		var s string
		switch k {
		case "about":
			vs.about, err = d.str(v, "about")
		case "lead":
			vs.lead, err = d.strs(v, "lead", false)
		case "flags":
			names := map[string]bool{}
			err = d.entries(v, scope+" flags", false, func(fname string, fk, fv *yaml.Node) error {
				if names[fname] {
					return d.errf(fk, "%s: flag '%s' declared twice", scope, refusal.Show(fname))
				}
				names[fname] = true
				f, err := d.flag(scope, fname, fk, fv)
				vs.flags = append(vs.flags, f)
				return err
			})
		case "positionals":
			err = d.positionals(scope, v, vs)
		case "tail":
			s, err = d.str(v, "tail")
			vs.tail = Tail(s)
			if err == nil && s != string(TailDeny) && s != string(TailAfterDashDash) && s != string(TailForward) {
				err = d.errf(v, "%s: tail '%s' is not one of deny, after-dash-dash, forward", scope, refusal.Show(s))
			}
		case "stdin":
			s, err = d.str(v, "stdin")
			vs.stdin = StdinPolicy(s)
			if err == nil && s != string(StdinClosed) && s != string(StdinPipe) {
				err = d.errf(v, "%s: stdin '%s' is not one of closed, pipe", scope, refusal.Show(s))
			}
		case "json":
			vs.json, err = d.boolean(v, "json")
		case "omit_name":
			vs.omitName, err = d.boolean(v, "omit_name")
		case "network", "read_paths", "write_paths":
			err = d.reach(scope, &vs.reach, k, v)
		case "annotations":
			vs.hints, err = d.annotations(scope, v)
		case "examples":
			err = d.mapping(v, scope+" examples", func(title string, _, ev *yaml.Node) error {
				line, err := d.str(ev, "example '"+title+"'")
				vs.examples = append(vs.examples, example{title, line})
				return err
			})
		default:
			err = d.unknownKey(kn, scope, "about, annotations, examples, flags, json, lead, network, omit_name, positionals, read_paths, stdin, tail, write_paths")
		}
		return err
	})
	return vs, err
}

func (d *decoder) flag(scope, name string, key, n *yaml.Node) (*FlagSpec, error) {
	f := &FlagSpec{name: name, pos: d.pos(key)}
	typed := false
	err := d.mapping(n, scope+" flag '"+name+"'", func(k string, kn, v *yaml.Node) error {
		var err error
		var s string
		switch k {
		case "type":
			s, err = d.str(v, "type")
			typed = true
			switch s {
			case "switch":
				f.typ = TypeSwitch
			case "string", "int":
				f.typ = FlagType(s)
			default:
				if err == nil {
					err = d.errf(v, "%s: flag '%s': type '%s' is not one of string, int, switch", scope, name, refusal.Show(s))
				}
			}
		case "alias":
			f.aliases, err = d.strs(v, "alias", true)
		case "choices":
			f.choices, err = d.strs(v, "choices", false)
			if err == nil && len(f.choices) == 0 {
				err = d.errf(v, "%s: flag '%s': choices is empty", scope, name)
			}
		case "repeatable":
			f.repeatable, err = d.boolean(v, "repeatable")
		case "required":
			f.required, err = d.boolean(v, "required")
		case "style":
			s, err = d.str(v, "style")
			f.style = Style(s)
			if err == nil && s != string(StyleEquals) && s != string(StyleSeparate) {
				err = d.errf(v, "%s: flag '%s': style '%s' is not one of equals, separate", scope, name, refusal.Show(s))
			}
		case "about":
			f.about, err = d.str(v, "about")
		default:
			err = d.unknownKey(kn, scope+" flag '"+name+"'", "about, alias, choices, repeatable, required, style, type")
		}
		return err
	})
	if err == nil && !typed && len(f.choices) > 0 {
		f.typ = TypeString // choices imply string
	}
	return f, err
}

func (d *decoder) positionals(scope string, n *yaml.Node, vs *VerbSpec) error {
	n = deref(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, "%s: positionals must be a list", scope)
	}
	for _, item := range n.Content {
		if err := d.count(); err != nil {
			return err
		}
		err := d.expand(item, func(item *yaml.Node) error {
			a, err := d.positional(scope, item)
			vs.args = append(vs.args, a)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) positional(scope string, n *yaml.Node) (*ArgSpec, error) {
	a := &ArgSpec{pos: d.pos(n)}
	named := false
	var hold *yaml.Node // read once the name is known, for the refusal
	err := d.mapping(n, scope+" positional", func(k string, kn, v *yaml.Node) error {
		var err error
		switch k {
		case "name":
			a.name, err = d.str(v, "name")
			named = true
		case "many":
			a.many, err = d.boolean(v, "many")
		case "required":
			a.required, err = d.boolean(v, "required")
		case "path_under":
			a.pathUnder, err = d.str(v, "path_under")
			a.underPos = d.pos(v)
		case "hold":
			hold = v
		case "about":
			a.about, err = d.str(v, "about")
		default:
			err = d.unknownKey(kn, scope+" positional", "about, hold, many, name, path_under, required")
		}
		return err
	})
	if err == nil && !named {
		err = d.errf(n, "%s: a positional needs a name", scope)
	}
	if err == nil && !isNull(hold) {
		err = d.hold(scope, a, hold)
	}
	return a, err
}

// hold decodes a positional's hold: true or false; null leaves the choice
// to the profile.
func (d *decoder) hold(scope string, a *ArgSpec, n *yaml.Node) error {
	var on bool
	if n.Kind != yaml.ScalarNode {
		return d.errf(n, "%s: argument '%s': hold must be true or false; got a %s", scope, a.name, kindName(n))
	}
	if n.Tag != "!!bool" || n.Decode(&on) != nil {
		return d.errf(n, "%s: argument '%s': hold must be true or false; got '%s'", scope, a.name, refusal.Show(n.Value))
	}
	a.Hold(on)
	a.holdPos = d.pos(n)
	return nil
}
