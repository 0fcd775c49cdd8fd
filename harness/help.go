package harness

import (
	"fmt"
	"strings"
)

// Help is the tool's help, made from its schema: usage, description and
// one line per flag. `NAME --help` and `help NAME` print it.
func (t *Tool) Help() string {
	f := t.flags
	var b strings.Builder
	name := t.def.Name
	usage := []string{"usage: " + name}
	for _, p := range f.flagged() {
		usage = append(usage, p.usage())
	}
	b.WriteString(strings.Join(usage, " "))
	fmt.Fprintf(&b, "\n       %s --json '{…}'\n       echo '{…}' | %s\n", name, name)
	if t.desc != "" {
		fmt.Fprintf(&b, "\n%s\n", t.desc)
	}
	b.WriteString("\n" + f.set.Help())
	var jsonOnly []string
	for _, n := range f.names {
		if f.props[n].flag == "" {
			jsonOnly = append(jsonOnly, n)
		}
	}
	if len(jsonOnly) > 0 {
		fmt.Fprintf(&b, "\nonly in JSON input: %s\n", strings.Join(jsonOnly, ", "))
	}
	// What a confined session lets the program reach beyond its root.
	if t.def.Network || len(t.def.ReadPaths) > 0 || len(t.def.WritePaths) > 0 {
		b.WriteByte('\n')
	}
	if t.def.Network {
		b.WriteString("network: on\n")
	}
	if len(t.def.ReadPaths) > 0 {
		fmt.Fprintf(&b, "also reads: %s\n", strings.Join(t.def.ReadPaths, ", "))
	}
	if len(t.def.WritePaths) > 0 {
		fmt.Fprintf(&b, "also writes: %s\n", strings.Join(t.def.WritePaths, ", "))
	}
	return b.String()
}

// flagged lists the properties a flag can name: required first, then by
// name.
func (f *Flags) flagged() []*property {
	var req, opt []*property
	for _, n := range f.names {
		p := f.props[n]
		switch {
		case p.flag == "":
		case p.required:
			req = append(req, p)
		default:
			opt = append(opt, p)
		}
	}
	return append(req, opt...)
}

func (p *property) usage() string {
	u := p.flag + p.placeholder()
	if !p.required {
		u = "[" + u + "]"
	}
	return u
}

// placeholder is what follows the flag: " INTEGER", " STRING,…", or
// nothing for a boolean.
func (p *property) placeholder() string {
	switch {
	case p.switchFlag:
		return ""
	case p.array && p.jsonItems:
		return " JSON"
	case p.array:
		return " " + typeWord(p.items) + ",…"
	}
	return " " + typeWord(p.types)
}

func typeWord(types []string) string {
	if len(types) != 1 {
		return "VALUE"
	}
	switch types[0] {
	case "object", "array":
		return "JSON"
	}
	return strings.ToUpper(types[0])
}

func (p *property) explain() string {
	var parts []string
	if p.description != "" {
		parts = append(parts, p.description)
	}
	if len(p.enum) > 0 {
		parts = append(parts, "one of: "+strings.Join(p.enum, ", "))
	}
	switch {
	case p.switchFlag:
		parts = append(parts, fmt.Sprintf("(alone means true; %s=false)", p.flag))
	case p.array && p.jsonItems:
		parts = append(parts, "(repeatable: one JSON item or a JSON array each)")
	case p.array && p.items == nil:
		parts = append(parts, "(repeatable, comma-separated or a JSON array)")
	case p.array:
		parts = append(parts, "(repeatable or comma-separated)")
	}
	return strings.Join(parts, " ")
}
