package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/kernel"
)

// A launcher is a command that runs another (env, timeout, xargs…): a
// [kernel.Launcher]. Its grammar — options, the operands before the
// command, NAME=VALUE words — reads the words both for the static pass
// ([launcher.Unwrap], [launcher.CheckStatic]) and for the run, so that
// what the guard looks through is what runs.
type launcher struct {
	name  string
	usage string // after the name: "[-i] [NAME=VALUE]... [COMMAND [ARG]...]"
	about string
	opts  []option
	// operands name the words between the options and the command, each
	// required: timeout's DURATION, flock's FILE.
	operands []string
	// assigns lets NAME=VALUE words stand before the command (env).
	assigns bool
	// dash is the option a lone "-" before the operands stands for (env's
	// "-" is -i); empty when "-" is the command.
	dash string
	// numeric is the option -N stands for, --N for -N (nice -5, nice --5).
	numeric string
	// command says whether a command must follow; without one, run gets
	// an empty command.
	command bool
	// addsWords is true when the launcher adds words read at execution to
	// the command (xargs), and defaultCommand its command when none is
	// given.
	addsWords      bool
	defaultCommand string
	// check judges what was read before anything runs, in the static pass
	// when every word it looks at is literal and again at execution; nil
	// when there is nothing to judge.
	check func(a *launchArgs) error
	run   func(ctx context.Context, c *kernel.Call, a *launchArgs) error

	grammarOnce sync.Once
	set         *argv.Set // the options as internal/argv reads them
}

// An option is one of a launcher's flags. key names it in [launchArgs]:
// the long name, or the short letter when it has none.
type option struct {
	short rune
	long  string
	key   string // overrides the key: two spellings of one option (flock -x, -e)
	arg   string // the value's name; "" for a switch
	// def is the value of a long option given without one (xargs
	// --replace is --replace={}): the value is then optional, and
	// attached with = only.
	def   string
	about string
}

func (o option) id() string {
	switch {
	case o.key != "":
		return o.key
	case o.long != "":
		return o.long
	}
	return string(o.short)
}

// launchArgs is a launcher's call as read.
type launchArgs struct {
	set   map[string][]string // each option given, by key, with its values in order
	order []string            // the keys as given
	// operands are the words the grammar names, in order.
	operands []string
	// assigns are the NAME=VALUE words before the command.
	assigns []string
	// command is the launched command's words.
	command []kernel.Word
	// opaque is true when a value or an operand is only known at
	// execution: check is then left to the run.
	opaque bool
}

func (a *launchArgs) has(key string) bool { return len(a.set[key]) > 0 }

// value is the last value of an option, or def when it was not given.
func (a *launchArgs) value(key, def string) string {
	if v := a.set[key]; len(v) > 0 {
		return v[len(v)-1]
	}
	return def
}

// last reports which of keys was given last, "" when none was.
func (a *launchArgs) last(keys ...string) string {
	for i := len(a.order) - 1; i >= 0; i-- {
		for _, k := range keys {
			if a.order[i] == k {
				return k
			}
		}
	}
	return ""
}

// argv is the launched command as strings; at execution every word is
// literal.
func (a *launchArgs) argv() []string {
	out := make([]string, len(a.command))
	for i, w := range a.command {
		out[i] = w.Text
	}
	return out
}

// grammar is the launcher's options as internal/argv reads them: GNU
// getopt in POSIX mode, the first operand ending them; built on first use.
func (l *launcher) grammar() *argv.Set {
	l.grammarOnce.Do(func() {
		set := &argv.Set{Command: l.name, Syntax: argv.GNU, HelpWords: []string{"--help"}}
		for _, o := range l.opts {
			f := argvFlag(o.short, o.long, o.arg, o.about)
			f.Optional, f.Implied = o.def != "", o.def
			set.Flags = append(set.Flags, f)
		}
		l.set = set
	})
	return l.set
}

// read reads a call's words (words[0] is the name) as getopt does in
// POSIX mode: options until the first word that is not one (or "--"),
// short options clustered, a value attached or in the next word, long
// names by a unique prefix, --name=value. Then come the operands, the
// NAME=VALUE words where the launcher takes them, and the command. An
// opaque word where an option may stand is the first operand when the
// launcher takes operands; otherwise it, like an opaque word where an
// assignment may stand, ends the reading: the command starts at it.
// --help is an option only as the call's one word (Run).
func (l *launcher) read(words []kernel.Word) (*launchArgs, error) {
	a := &launchArgs{set: map[string][]string{}}
	add := func(o option, v string) {
		a.set[o.id()] = append(a.set[o.id()], v)
		a.order = append(a.order, o.id())
	}
	texts, opaque := make([]string, len(words)-1), make([]bool, len(words)-1)
	for i, w := range words[1:] {
		texts[i], opaque[i] = w.Text, w.Opaque
	}
	set := *l.grammar()
	set.HelpWords = nil
	sc := set.ScanOpaque(texts, opaque)
	start := len(texts) // where the operands start
scan:
	for {
		if t, op, ok := sc.Peek(); ok && !op {
			if t == "-" && l.dash != "" {
				add(l.option(l.dash), "")
				sc.Take()
				continue
			}
			if n, ok := numericOption(t); ok && l.numeric != "" {
				add(l.option(l.numeric), n)
				sc.Take()
				continue
			}
		}
		it, ok := sc.Next()
		if !ok {
			break
		}
		switch it.Kind {
		case argv.Operand:
			if it.Opaque && len(l.operands) == 0 {
				a.command = words[1+it.Index:]
				return a, nil
			}
			// An opaque one is taken for the first operand (timeout $T
			// cmd): the guard then still sees the command after it.
			start = it.Index
			break scan
		case argv.EndOfFlags:
			start = it.Index + 1
			break scan
		case argv.Refused:
			return nil, flagRefusal(it.Err)
		}
		add(l.opts[slices.Index(set.Flags, it.Flag)], it.Value)
		a.opaque = a.opaque || it.Opaque
	}
	rest := words[1+start:]
	for _, name := range l.operands {
		if len(rest) == 0 {
			return nil, l.missing(name)
		}
		a.operands = append(a.operands, rest[0].Text)
		a.opaque = a.opaque || rest[0].Opaque
		rest = rest[1:]
	}
	for l.assigns && len(rest) > 0 && !rest[0].Opaque {
		name, _, ok := strings.Cut(rest[0].Text, "=")
		if !ok || name == "" {
			break
		}
		a.assigns = append(a.assigns, rest[0].Text)
		rest = rest[1:]
	}
	if len(rest) == 0 && l.command {
		return nil, l.missing("COMMAND")
	}
	a.command = rest
	return a, nil
}

// numericOption reads nice's old spelling: -N is N, --N is -N.
func numericOption(t string) (string, bool) {
	switch {
	case strings.HasPrefix(t, "--") && isDigits(t[2:]):
		return "-" + t[2:], true
	case len(t) > 1 && t[0] == '-' && isDigits(t[1:]):
		return t[1:], true
	}
	return "", false
}

func (l *launcher) option(key string) option {
	for _, o := range l.opts {
		if o.id() == key {
			return o
		}
	}
	panic("builtins: " + l.name + " has no option " + key)
}

// pool is every flag the launcher takes, for a refusal.
func (l *launcher) pool() []string { return l.grammar().Pool() }

// refuse is the launcher's refusal: what was wrong, and what it allows
// instead.
func (l *launcher) refuse(what string, allowed ...string) error {
	return &kernel.Refusal{Command: l.name, What: what, Allowed: allowed}
}

// missing refuses a call without its operand what; the usage is what is
// allowed.
func (l *launcher) missing(what string) error {
	return l.refuse("missing "+what, l.name+" "+l.usage)
}

func (l *launcher) Name() string                 { return l.name }
func (l *launcher) Kind() kernel.Kind            { return kernel.Builtin }
func (l *launcher) Description() string          { return l.about }
func (l *launcher) Help() string                 { return l.help() }
func (l *launcher) InputSchema() json.RawMessage { return launcherSchema(l) }

// Run reads the words, judges them and runs the launcher. --help as the
// first word prints the usage.
func (l *launcher) Run(ctx context.Context, c *kernel.Call) error {
	if len(c.Args) == 2 && c.Args[1] == "--help" {
		_, err := io.WriteString(c.Stdout, l.help())
		return err
	}
	words := make([]kernel.Word, len(c.Args))
	for i, arg := range c.Args {
		words[i] = kernel.Word{Text: arg}
	}
	a, err := l.read(words)
	if err != nil {
		return err
	}
	if l.check != nil {
		if err := l.check(a); err != nil {
			return err
		}
	}
	return l.run(ctx, c, a)
}

// Unwrap finds the command the words launch, for the guard and the
// static pass: none when the launcher refuses them or runs nothing.
func (l *launcher) Unwrap(words []kernel.Word) (kernel.Launched, bool) {
	a, err := l.read(words)
	if err != nil {
		return kernel.Launched{}, false
	}
	command := a.command
	if len(command) == 0 {
		if l.defaultCommand == "" {
			return kernel.Launched{}, false
		}
		command = []kernel.Word{{Text: l.defaultCommand}}
	}
	if l.addsWords {
		command = append(command[:len(command):len(command)], kernel.Word{Opaque: true})
	}
	var names []string
	for _, kv := range a.assigns {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	return kernel.Launched{Words: command, Assigns: names}, true
}

// CheckStatic refuses, before anything runs, a call the launcher is
// certain to refuse: a flag it does not take, a missing operand, a value
// it cannot read.
func (l *launcher) CheckStatic(words []kernel.Word) error {
	if len(words) == 2 && words[1].Text == "--help" {
		return nil
	}
	a, err := l.read(words)
	if err != nil || l.check == nil || a.opaque {
		return err
	}
	return l.check(a)
}

func (l *launcher) help() string {
	return fmt.Sprintf("usage: %s %s\n\n%s\n\n%s", l.name, l.usage, l.about, l.grammar().Help())
}

// launcherSchema describes a launcher for agents: its words.
func launcherSchema(l *launcher) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"type":        "object",
		"description": l.about,
		"properties": map[string]any{
			"args": map[string]any{
				"type":        "array",
				"items":       map[string]string{"type": "string"},
				"description": "the words after the command's name: " + l.usage,
			},
		},
		"additionalProperties": false,
	})
	return b
}

// launched turns the status of a launched command into the launcher's
// result: ctx's error when the call ended, so that the script stops.
func launched(ctx context.Context, code int, err error) error {
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return status(code)
}
