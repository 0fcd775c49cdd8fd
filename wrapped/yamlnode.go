package wrapped

import (
	"gopkg.in/yaml.v3"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel"
)

// The decoder walks the nodes of a tools file: mappings in written order,
// strings, booleans and lists, each refusal naming FILE:LINE:COL, and what
// aliases repeat bounded. yaml.go maps the vocabulary onto it.

// maxAliased bounds the mapping entries and list items a tools file
// reaches through aliases. An alias repeats all that its anchor names, so a
// few nested ones would let a file of a few kilobytes declare millions of
// flags.
const maxAliased = 10000

// decoder reads the nodes of one tools file.
type decoder struct {
	file, dir string
	inAlias   int        // > 0 while decoding what an alias names
	outermost *yaml.Node // the alias being decoded, when inAlias > 0
	aliased   int        // the entries and items read inside aliases so far
}

// count notes one entry or item about to be read, refusing it, at the
// alias that repeats it, past maxAliased of them inside aliases.
func (d *decoder) count() error {
	if d.inAlias == 0 {
		return nil
	}
	if d.aliased++; d.aliased > maxAliased {
		return d.errf(d.outermost, "aliases repeat more than %d entries; write the declarations out", maxAliased)
	}
	return nil
}

// expand calls fn with what n names; when n is an alias, what fn reads
// counts against maxAliased.
func (d *decoder) expand(n *yaml.Node, fn func(n *yaml.Node) error) error {
	if n != nil && n.Kind == yaml.AliasNode {
		if d.inAlias == 0 {
			d.outermost = n
		}
		d.inAlias++
		defer func() { d.inAlias-- }()
	}
	return fn(deref(n))
}

func (d *decoder) pos(n *yaml.Node) pos { return pos{file: d.file, line: n.Line, col: n.Column} }

func (d *decoder) errf(n *yaml.Node, format string, args ...any) error {
	return d.pos(n).errorf(format, args...)
}

// deref follows aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// mapping calls fn for each key of a mapping, in written order, refusing
// keys given twice. A null node is an empty mapping.
func (d *decoder) mapping(n *yaml.Node, what string, fn func(key string, k, v *yaml.Node) error) error {
	return d.entries(n, what, true, fn)
}

// entries is mapping, with the refusal of duplicate keys left to fn when
// dups is false.
func (d *decoder) entries(n *yaml.Node, what string, dups bool, fn func(key string, k, v *yaml.Node) error) error {
	n = deref(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return d.errf(n, "%s must be a mapping", what)
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			return d.errf(n.Content[i], "%s: keys must be plain strings", what)
		}
		if err := d.count(); err != nil {
			return err
		}
		if dups && seen[k.Value] {
			return d.errf(k, "%s: '%s' given twice", what, refusal.Show(k.Value))
		}
		seen[k.Value] = true
		err := d.expand(n.Content[i+1], func(v *yaml.Node) error { return fn(k.Value, k, v) })
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) str(n *yaml.Node, what string) (string, error) {
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", d.errf(n, "%s must be a string", what)
	}
	return n.Value, nil
}

func (d *decoder) boolean(n *yaml.Node, what string) (bool, error) {
	if isNull(n) {
		return false, nil
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		return false, d.errf(n, "%s must be true or false", what)
	}
	return b, nil
}

// strs decodes a sequence of strings; a single string is a list of one
// when one is set.
func (d *decoder) strs(n *yaml.Node, what string, one bool) ([]string, error) {
	if isNull(n) {
		return nil, nil
	}
	if one && n.Kind == yaml.ScalarNode {
		return []string{n.Value}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.errf(n, "%s must be a list of strings", what)
	}
	out := make([]string, 0, len(n.Content))
	for _, item := range n.Content {
		if err := d.count(); err != nil {
			return nil, err
		}
		item = deref(item)
		if item == nil || item.Kind != yaml.ScalarNode || isNull(item) {
			return nil, d.errf(orNode(item, n), "%s must be a list of strings", what)
		}
		out = append(out, item.Value)
	}
	return out, nil
}

// kindName names what a node holds, for refusals of a value that is not
// a scalar.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

func orNode(n, fallback *yaml.Node) *yaml.Node {
	if n == nil {
		return fallback
	}
	return n
}

// unknownKey refuses a key the vocabulary does not have, naming those it does.
func (d *decoder) unknownKey(k *yaml.Node, where, allowed string) error {
	return d.errf(k, "unknown key '%s' in %s; allowed: %s", refusal.Show(k.Value), where, allowed)
}

// annotations decodes a command's or verb's annotations: a mapping of
// read_only, destructive, idempotent and open_world to true or false,
// each not given false.
func (d *decoder) annotations(scope string, n *yaml.Node) (*kernel.Annotations, error) {
	var a kernel.Annotations
	what := scope + " annotations"
	err := d.mapping(n, what, func(k string, kn, v *yaml.Node) error {
		var err error
		switch k {
		case "read_only":
			a.ReadOnly, err = d.boolean(v, what+" read_only")
		case "destructive":
			a.Destructive, err = d.boolean(v, what+" destructive")
		case "idempotent":
			a.Idempotent, err = d.boolean(v, what+" idempotent")
		case "open_world":
			a.OpenWorld, err = d.boolean(v, what+" open_world")
		default:
			err = d.unknownKey(kn, what, "destructive, idempotent, open_world, read_only")
		}
		return err
	})
	return &a, err
}
