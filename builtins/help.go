package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

// A shellBuiltin is a command with the shell's own grammar (jobs, wait,
// kill, help, tools): bash's flags, read by its run.
type shellBuiltin struct {
	name, usage, about string
	run                func(ctx context.Context, c *kernel.Call) error
	// ownsH is set for a command whose -h is its own flag (disown -h):
	// only --help prints its help.
	ownsH bool
}

func (b *shellBuiltin) Name() string        { return b.name }
func (b *shellBuiltin) Kind() kernel.Kind   { return kernel.Builtin }
func (b *shellBuiltin) Description() string { return b.about }
func (b *shellBuiltin) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"args":{"type":"array","items":{"type":"string"},"description":"the words after the command's name"}},"additionalProperties":false}`)
}
func (b *shellBuiltin) Help() string { return fmt.Sprintf("usage: %s\n\n%s\n", b.usage, b.about) }

// Run prints the help for --help or -h (unless ownsH) as the first word,
// and runs the command otherwise.
func (b *shellBuiltin) Run(ctx context.Context, c *kernel.Call) error {
	if len(c.Args) > 1 && (c.Args[1] == "--help" || c.Args[1] == "-h" && !b.ownsH) {
		_, err := io.WriteString(c.Stdout, b.Help())
		return err
	}
	return b.run(ctx, c)
}

var helpBuiltin = &shellBuiltin{
	name:  "help",
	usage: "help [-s|-d] [NAME...]",
	about: "List the commands shelter provides, or describe one of them or a bash builtin.",
	run:   runHelp,
}

var toolsBuiltin = &shellBuiltin{
	name:  "tools",
	usage: "tools [--json]",
	about: "List every tool of the session with its kind and description; --json prints their schemas.",
	run:   runTools,
}

// runHelp is `help [-s|-d] [NAME...]`: shelter's commands, or one of them,
// or, as bash's help does, a bash builtin's synopsis. An unknown NAME is
// status 1, as in bash.
func runHelp(_ context.Context, c *kernel.Call) error {
	tools := c.Tools()
	args := c.Args[1:]
	mode := ""
	if len(args) > 0 && (args[0] == "-s" || args[0] == "-d") {
		mode, args = args[0], args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	} else if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		// A misuse, status 2 as in bash.
		fmt.Fprintln(c.Stderr, (&kernel.Refusal{Command: "help", What: "unknown flag " + kernel.Quote(args[0]), Allowed: []string{"-d", "-s"}}).Error())
		return kernel.ExitStatus(2)
	}
	if len(args) == 0 && mode == "" {
		fmt.Fprintln(c.Stdout, "shelter commands (help NAME for one; bash builtins and programs on PATH work as usual):")
		for _, line := range strings.SplitAfter(kernel.FormatTools(kernel.Describe(tools)), "\n") {
			if line != "" && line != "\n" {
				line = "  " + line
			}
			io.WriteString(c.Stdout, line)
		}
		return nil
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name()
	}
	failed := false
	for _, name := range args {
		if i := slices.Index(names, name); i >= 0 {
			t := tools[i]
			switch mode {
			case "-s":
				fmt.Fprintf(c.Stdout, "%s: %s\n", name, synopsis(t))
			case "-d":
				fmt.Fprintf(c.Stdout, "%s - %s\n", name, firstLine(t.Description()))
			default:
				fmt.Fprint(c.Stdout, kernel.ToolHelp(t))
			}
			continue
		}
		if h, ok := bashHelp()[name]; ok {
			switch mode {
			case "-s":
				fmt.Fprintln(c.Stdout, h.synopsis)
			case "-d":
				fmt.Fprintf(c.Stdout, "%s - %s\n", name, h.about)
			default:
				fmt.Fprintf(c.Stdout, "%s\n    %s\n", h.synopsis, h.about)
			}
			continue
		}
		fmt.Fprintln(c.Stderr, (&UnknownTopicError{Topic: name, Commands: names}).Error())
		failed = true
	}
	if failed {
		return kernel.ExitStatus(1)
	}
	return nil
}

// UnknownTopicError is `help NAME` for a NAME that is neither a command of
// the session nor a bash builtin.
type UnknownTopicError struct {
	Topic    string
	Commands []string // the session's commands
}

// Error is the line, which starts as bash's does: "help: no help topics
// match 'ZZZ'; allowed: a bash builtin
// (cd, read, …), a shelter command (env, help, …)".
func (e *UnknownTopicError) Error() string {
	builtins := make([]string, 0, len(bashHelp()))
	for n := range bashHelp() {
		if !slices.Contains(e.Commands, n) {
			builtins = append(builtins, n)
		}
	}
	return (&kernel.Refusal{Command: "help", What: "no help topics match " + kernel.Quote(e.Topic),
		Allowed: []string{"a shelter command (" + kernel.Pool(e.Commands) + ")", "a bash builtin (" + kernel.Pool(builtins) + ")"}}).Error()
}

// synopsis is the usage line of a tool, for `help -s`.
func synopsis(t kernel.Tool) string {
	switch t := t.(type) {
	case *shellBuiltin:
		return t.usage
	case *launcher:
		return t.name + " " + t.usage
	case *command:
		return t.name + " " + t.usage
	}
	return t.Name() + " [--flag VALUE ...]"
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func runTools(_ context.Context, c *kernel.Call) error {
	tools := c.Tools()
	switch {
	case len(c.Args) == 2 && c.Args[1] == "--json":
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(kernel.Describe(tools))
	case len(c.Args) > 1:
		return &kernel.Refusal{Command: "tools", What: "unknown argument " + kernel.Quote(c.Args[1]), Allowed: []string{"--json"}}
	}
	_, err := io.WriteString(c.Stdout, kernel.FormatTools(kernel.Describe(tools)))
	return err
}
