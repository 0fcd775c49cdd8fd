package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/shelter-sh/shelter/internal/toolfile"
	"github.com/shelter-sh/shelter/kernel"
)

// toolKeys are the keys of one tool's declaration.
var toolKeys = []string{"annotations", "description", "env", "input", "network", "output", "pass_env", "read_paths", "replaces", "run", "write_paths"}

// annotationKeys are the keys of `annotations:`.
var annotationKeys = []string{"destructive", "idempotent", "open_world", "read_only"}

// DecodeYAML decodes the value node of the top-level `tools:` key of a
// tools file: a mapping from tool name to a declaration of an executable
// tool ([Exec]):
//
//	logs:
//	  description: Read a unit's journal.
//	  input: {type: object, properties: {unit: {type: string}}, required: [unit]}
//	  output: {type: object}                 # optional
//	  replaces: [journalctl, systemctl status]
//	  annotations: {read_only: true}         # read_only, destructive, idempotent, open_world
//	  pass_env: [UNIT_FILTER]                # optional: the agent's variables it gets in the sandbox
//	  env: {MESH_COLOR: never}               # optional: pinned variables
//	  network: true                          # optional: the host's network where programs are confined
//	  read_paths: [/srv/meshctl/share]       # optional: further paths to read there
//	  write_paths: [/var/cache/meshctl]      # optional: further paths to write there
//	  run: [/usr/local/bin/meshctl, call, logs]
//
// Keys are strict. A relative program path with a slash in `run`, and a
// relative path of read_paths and write_paths, is taken relative to the
// file's directory; a bare name is looked up once, now, in
// the PATH of shelter's process ([Exec]), and a name not found there is an
// error. Errors read FILE:LINE:COL: message ([*LoadError]). A null node
// declares no tools.
func DecodeYAML(filename string, tools *yaml.Node) ([]kernel.Tool, error) {
	d := &decoder{file: filename}
	tools = resolveAlias(tools)
	if tools == nil || tools.Kind == yaml.ScalarNode && tools.Tag == "!!null" {
		return nil, nil
	}
	if tools.Kind != yaml.MappingNode {
		return nil, d.errorf(tools, "tools: want a mapping of tool names to declarations")
	}
	var out []kernel.Tool
	seen := make(map[string]*yaml.Node)
	for i := 0; i+1 < len(tools.Content); i += 2 {
		key, val := tools.Content[i], resolveAlias(tools.Content[i+1])
		name := key.Value
		if key.Kind != yaml.ScalarNode || !namePattern().MatchString(name) {
			return nil, d.errorf(key, "tool name %q must match [a-z][a-z0-9_-]{0,47}", name)
		}
		if prev, ok := seen[name]; ok {
			return nil, d.errorf(key, "tool %s declared twice (first at line %d)", name, prev.Line)
		}
		seen[name] = key
		t, err := d.tool(name, key, val)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// LoadFile reads a tools file whose top level has `tools:` and possibly
// `commands:` (wrapped commands, which LoadFile skips), and returns its
// harness tools.
func LoadFile(path string) ([]kernel.Tool, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sections, err := toolfile.Split(path, src)
	if err != nil {
		var te *toolfile.Error
		if errors.As(err, &te) {
			return nil, &LoadError{File: te.File, Line: te.Line, Col: te.Col, Message: te.Msg}
		}
		return nil, err
	}
	return DecodeYAML(path, sections.Tools)
}

type decoder struct {
	file  string
	nodes int // nodes converted so far, against alias bombs
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) error {
	e := &LoadError{File: d.file, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// tool decodes one declaration.
func (d *decoder) tool(name string, key, n *yaml.Node) (kernel.Tool, error) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, d.errorf(orKey(n, key), "tool %s: want a mapping with keys %s", name, strings.Join(toolKeys, ", "))
	}
	def := Def{Name: name}
	var run []string
	var runNode, inputNode, outputNode, passNode, envNode, readNode, writeNode *yaml.Node
	seen := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		if !slices.Contains(toolKeys, k.Value) {
			return nil, d.errorf(k, "tool %s: unknown key '%s'; allowed: %s", name, k.Value, strings.Join(toolKeys, ", "))
		}
		if seen[k.Value] {
			return nil, d.errorf(k, "tool %s: %s given twice", name, k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "description":
			def.Description, err = d.text(name, k.Value, v)
		case "input":
			inputNode = v
			def.Input, err = d.jsonSchema(name, k.Value, v)
		case "output":
			outputNode = v
			def.Output, err = d.jsonSchema(name, k.Value, v)
		case "replaces":
			def.Replaces, err = d.words(name, k.Value, v)
		case "annotations":
			def.Annotations, err = d.annotations(name, v)
		case "pass_env":
			passNode = v
			def.PassEnv, err = d.words(name, k.Value, v)
		case "env":
			envNode = v
			def.Env, err = d.env(name, v)
		case "network":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&def.Network) != nil {
				err = d.errorf(v, "tool %s: network: want true or false", name)
			}
		case "read_paths":
			readNode = v
			def.ReadPaths, err = d.paths(name, k.Value, v)
		case "write_paths":
			writeNode = v
			def.WritePaths, err = d.paths(name, k.Value, v)
		case "run":
			runNode = v
			run, err = d.words(name, k.Value, v)
			if err == nil && len(run) == 0 {
				err = d.errorf(v, "tool %s: run: want the command to execute, e.g. [/usr/local/bin/meshctl, call, logs]", name)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if runNode == nil {
		return nil, d.errorf(key, "tool %s: missing key 'run' (the command to execute, e.g. [/usr/local/bin/meshctl, call, logs])", name)
	}
	if strings.Contains(run[0], "/") && !filepath.IsAbs(run[0]) {
		run[0] = filepath.Join(filepath.Dir(d.file), run[0])
		if abs, err := filepath.Abs(run[0]); err == nil {
			run[0] = abs
		}
	}
	for _, r := range def.Replaces {
		if len(strings.Fields(r)) == 0 {
			return nil, d.errorf(key, "tool %s: replaces: an empty entry", name)
		}
	}
	t, err := Exec(def, run)
	if err != nil {
		// Point at the schema or the value that failed, when one did.
		at := key
		var bad *badSchemaError
		var ke *keyError
		switch {
		case errors.As(err, &bad):
			at = outputNode
			if bad.which == "input" {
				at = inputNode
			}
		case errors.As(err, &ke) && ke.key == "run":
			at = runNode.Content[0]
		case errors.As(err, &ke) && ke.key == "pass_env":
			at = passNode.Content[ke.index]
		case errors.As(err, &ke) && ke.key == "env":
			at = envNode
		case errors.As(err, &ke) && ke.key == "read_paths":
			at = readNode.Content[ke.index]
		case errors.As(err, &ke) && ke.key == "write_paths":
			at = writeNode.Content[ke.index]
		}
		at = orKey(at, key)
		return nil, d.errorf(at, "%s", strings.TrimPrefix(err.Error(), "harness: "))
	}
	return t, nil
}

func orKey(n, key *yaml.Node) *yaml.Node {
	if n == nil || n.Line == 0 {
		return key
	}
	return n
}

// text reads a scalar as a string.
func (d *decoder) text(tool, key string, n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", d.errorf(n, "tool %s: %s: want a string", tool, key)
	}
	return n.Value, nil
}

// words reads a sequence of strings.
func (d *decoder) words(tool, key string, n *yaml.Node) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, d.errorf(n, "tool %s: %s: want a list of strings, e.g. [a, b]", tool, key)
	}
	out := make([]string, 0, len(n.Content))
	for _, item := range n.Content {
		item = resolveAlias(item)
		if item.Kind != yaml.ScalarNode || item.Tag == "!!null" || item.Value == "" {
			return nil, d.errorf(item, "tool %s: %s: want a non-empty string", tool, key)
		}
		out = append(out, item.Value)
	}
	return out, nil
}

// paths reads a list of paths; a relative one is taken from the file's
// directory.
func (d *decoder) paths(tool, key string, n *yaml.Node) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, d.errorf(n, "tool %s: %s: want a list of paths, e.g. [/var/cache/tool]", tool, key)
	}
	out := make([]string, 0, len(n.Content))
	for _, item := range n.Content {
		item = resolveAlias(item)
		if item.Kind != yaml.ScalarNode || item.Tag == "!!null" || item.Value == "" {
			return nil, d.errorf(item, "tool %s: %s: want a path", tool, key)
		}
		p := item.Value
		if !filepath.IsAbs(p) && strings.IndexByte(p, 0) < 0 {
			p = filepath.Join(filepath.Dir(d.file), p)
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// env reads a mapping of variable names to string values.
func (d *decoder) env(tool string, n *yaml.Node) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, d.errorf(n, "tool %s: env: want a mapping of variable names to values, e.g. {LANG: C.UTF-8}", tool)
	}
	out := make(map[string]string, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, d.errorf(k, "tool %s: env: a name must be a plain string", tool)
		}
		if _, dup := out[k.Value]; dup {
			return nil, d.errorf(k, "tool %s: env: %s given twice", tool, k.Value)
		}
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return nil, d.errorf(v, "tool %s: env: %s: want a string", tool, k.Value)
		}
		if !varName().MatchString(k.Value) {
			return nil, d.errorf(k, "tool %s: env: '%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", tool, printable(k.Value))
		}
		out[k.Value] = v.Value
	}
	return out, nil
}

func (d *decoder) annotations(tool string, n *yaml.Node) (Annotations, error) {
	var a Annotations
	if n.Kind != yaml.MappingNode {
		return a, d.errorf(n, "tool %s: annotations: want a mapping with keys %s", tool, strings.Join(annotationKeys, ", "))
	}
	seen := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		if !slices.Contains(annotationKeys, k.Value) {
			return a, d.errorf(k, "tool %s: annotations: unknown key '%s'; allowed: %s", tool, k.Value, strings.Join(annotationKeys, ", "))
		}
		if seen[k.Value] {
			return a, d.errorf(k, "tool %s: annotations: %s given twice", tool, k.Value)
		}
		seen[k.Value] = true
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
			return a, d.errorf(v, "tool %s: annotations: %s: want true or false", tool, k.Value)
		}
		b := v.Value == "true" || v.Value == "True" || v.Value == "TRUE"
		switch k.Value {
		case "read_only":
			a.ReadOnly = b
		case "destructive":
			a.Destructive = b
		case "idempotent":
			a.Idempotent = b
		case "open_world":
			a.OpenWorld = b
		}
	}
	return a, nil
}

// jsonSchema converts a YAML mapping into JSON.
func (d *decoder) jsonSchema(tool, key string, n *yaml.Node) (json.RawMessage, error) {
	if n.Kind != yaml.MappingNode {
		return nil, d.errorf(n, "tool %s: %s: want a JSON Schema object (a mapping)", tool, key)
	}
	v, err := d.toJSON(n, 0)
	if err == nil {
		err = d.checkVocabulary(n, "", true)
	}
	if err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			le.Message = fmt.Sprintf("tool %s: %s: %s", tool, key, le.Message)
		}
		return nil, err
	}
	return json.Marshal(v)
}

const (
	maxDepth = 64
	maxNodes = 100000
)

// toJSON converts a YAML node into a value encoding/json can marshal.
func (d *decoder) toJSON(n *yaml.Node, depth int) (any, error) {
	d.nodes++
	if depth > maxDepth || d.nodes > maxNodes {
		return nil, d.errorf(n, "nested too deep or too large")
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, d.errorf(n, "unknown alias")
		}
		return d.toJSON(n.Alias, depth+1)
	case yaml.MappingNode:
		obj := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				return nil, d.errorf(k, "a key must be a plain string")
			}
			if _, dup := obj[k.Value]; dup {
				return nil, d.errorf(k, "key '%s' given twice", k.Value)
			}
			v, err := d.toJSON(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			obj[k.Value] = v
		}
		return obj, nil
	case yaml.SequenceNode:
		arr := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := d.toJSON(c, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		return arr, nil
	case yaml.ScalarNode:
		return d.scalar(n)
	}
	return nil, d.errorf(n, "unexpected YAML node")
}

func (d *decoder) scalar(n *yaml.Node) (any, error) {
	switch n.Tag {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, d.errorf(n, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		if _, err := json.Marshal(v); err != nil {
			return nil, d.errorf(n, "%s is not a JSON value", n.Value)
		}
		return v, nil
	}
	return n.Value, nil
}
