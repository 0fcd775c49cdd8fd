package wrapped

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Help is the command's help: its description, its verbs, and the root's
// flags and arguments when it has a root. `help NAME` and `NAME --help`
// print it.
func (c *Command) Help() string {
	var b strings.Builder
	writeTitle(&b, c.name, c.about)
	if len(c.verbs) > 0 {
		fmt.Fprintf(&b, "usage: %s VERB [FLAGS] [ARGUMENTS]\n", c.name)
		if c.root != nil {
			fmt.Fprintf(&b, "       %s\n", c.root.usage())
		}
		b.WriteString("\nverbs:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, v := range c.verbs {
			fmt.Fprintf(tw, "  %s\t%s\n", v.name, firstLine(v.about))
		}
		tw.Flush()
	} else {
		fmt.Fprintf(&b, "usage: %s\n", c.root.usage())
	}
	if c.root != nil {
		c.root.writeBody(&b)
	}
	if len(c.verbs) > 0 {
		fmt.Fprintf(&b, "\n'%s VERB --help' describes a verb.\n", c.name)
	}
	return b.String()
}

// Help is the verb's help: usage, flags, arguments, policies, examples.
func (v *Verb) Help() string {
	if v.root {
		return v.cmd.Help()
	}
	var b strings.Builder
	writeTitle(&b, v.scope, v.about)
	fmt.Fprintf(&b, "usage: %s\n", v.usage())
	v.writeBody(&b)
	return b.String()
}

func writeTitle(b *strings.Builder, title, about string) {
	if about != "" {
		fmt.Fprintf(b, "%s: %s\n\n", title, strings.TrimSpace(about))
	} else {
		fmt.Fprintf(b, "%s\n\n", title)
	}
}

func (v *Verb) usage() string {
	parts := []string{v.scope}
	if len(v.flags) > 0 {
		parts = append(parts, "[FLAGS]")
	}
	for _, a := range v.args {
		u := a.name
		if a.many {
			u += "..."
		}
		if !a.required {
			u = "[" + u + "]"
		}
		parts = append(parts, u)
	}
	switch v.tail {
	case TailAfterDashDash:
		parts = append(parts, "[-- ARGS...]")
	case TailForward:
		parts = append(parts, "[ARGS...]")
	}
	return strings.Join(parts, " ")
}

func (v *Verb) writeBody(b *strings.Builder) {
	if flags := v.set.Help(); flags != "" {
		b.WriteString("\n" + flags)
	}
	if len(v.args) > 0 {
		b.WriteString("\narguments:\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for _, a := range v.args {
			var notes []string
			if a.required {
				notes = append(notes, "required")
			}
			if a.under != "" {
				notes = append(notes, "a path under "+a.underText())
			}
			note := firstLine(a.about)
			if len(notes) > 0 {
				note = strings.TrimSpace(note + " (" + strings.Join(notes, ", ") + ")")
			}
			name := a.name
			if a.many {
				name += "..."
			}
			fmt.Fprintf(tw, "  %s\t%s\n", name, note)
		}
		tw.Flush()
	}
	b.WriteByte('\n')
	switch v.tail {
	case TailDeny:
		b.WriteString("extra arguments: refused\n")
	case TailAfterDashDash:
		b.WriteString("extra arguments: accepted after --, passed as written\n")
	case TailForward:
		b.WriteString("extra arguments and unknown flags: passed as written\n")
	}
	if v.stdin == StdinPipe {
		b.WriteString("stdin: passed to the program\n")
	} else {
		b.WriteString("stdin: not read\n")
	}
	if v.json {
		b.WriteString("output: JSON\n")
	}
	// What a confined session lets this program reach beyond its root.
	if v.reach.network {
		b.WriteString("network: on\n")
	}
	if len(v.reach.read) > 0 {
		fmt.Fprintf(b, "also reads: %s\n", strings.Join(v.reach.read, ", "))
	}
	if len(v.reach.write) > 0 {
		fmt.Fprintf(b, "also writes: %s\n", strings.Join(v.reach.write, ", "))
	}
	if len(v.examples) > 0 {
		b.WriteString("\nexamples:\n")
		for _, e := range v.examples {
			fmt.Fprintf(b, "  %s: %s\n", e.title, e.line)
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
