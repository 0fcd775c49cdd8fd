package builtins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/kernel"
)

// A command is one coreutil: its flags, its help and its run function.
type command struct {
	name  string
	usage string // the synopsis after the name: "[OPTION]... [FILE]..."
	about string // one sentence
	flags []flag
	// numeric lets a leading -NUM stand for the flag of that long name
	// (head -5 is head -n 5); empty when the command has none.
	numeric string
	// operands says what the words after the flags are, for the schema.
	operands string
	// raw hands run every word as an operand, unparsed (only a first
	// --help is taken): for a command whose flags take several values or
	// change what the words after them are (jq's --arg NAME VALUE), which
	// run reads with the command's grammar. Its flag table still serves
	// the help, the schema and the pool.
	raw bool
	run func(ctx context.Context, c *kernel.Call, a *args) error

	grammarOnce sync.Once
	set         *argv.Set // the flags as internal/argv reads them
}

// A flag is one option: a short letter, a long name or both. A flag with
// a value names it (arg: "NUM"); one without is a switch.
type flag struct {
	short rune
	long  string
	arg   string
	about string
}

func (f flag) String() string {
	switch {
	case f.short != 0 && f.long != "":
		return fmt.Sprintf("-%c, --%s", f.short, f.long)
	case f.short != 0:
		return fmt.Sprintf("-%c", f.short)
	}
	return "--" + f.long
}

// key is how a command's run asks for a flag: its long name, or its short
// letter as a string when it has none.
func (f flag) key() string {
	if f.long != "" {
		return f.long
	}
	return string(f.short)
}

// args is a parsed command line.
type args struct {
	// set holds each flag given, by key, with its values in order (a
	// switch has one empty value per time it was given).
	set map[string][]string
	// order lists the flags as given, for commands where order matters
	// (sed -e, grep -e).
	order []given
	// operands are the words that are not flags, "-" included.
	operands []string
}

type given struct{ key, value string }

// has reports whether a flag was given.
func (a *args) has(key string) bool { return len(a.set[key]) > 0 }

// value is the last value of a flag, or def when it was not given.
func (a *args) value(key, def string) string {
	if v := a.set[key]; len(v) > 0 {
		return v[len(v)-1]
	}
	return def
}

// values are every value of a flag, in order.
func (a *args) values(key string) []string { return a.set[key] }

// count is how many times a flag was given.
func (a *args) count(key string) int { return len(a.set[key]) }

// last reports which of keys was given last, "" when none was.
func (a *args) last(keys ...string) string {
	for i := len(a.order) - 1; i >= 0; i-- {
		if slices.Contains(keys, a.order[i].key) {
			return a.order[i].key
		}
	}
	return ""
}

func (c *command) Name() string                 { return c.name }
func (c *command) Kind() kernel.Kind            { return kernel.Builtin }
func (c *command) Description() string          { return c.about }
func (c *command) Help() string                 { return c.help() }
func (c *command) InputSchema() json.RawMessage { return c.schema() }

// Run parses the words and runs the command. --help prints the usage.
// Once ctx ends the command's messages are dropped: a read or write it
// was in fails then (the kernel's deadlines on FIFOs and pipes), and what
// it would say of that is noise beside the call's own report, as a
// killed program says nothing.
func (c *command) Run(ctx context.Context, call *kernel.Call) error {
	call.Stderr = quietAfterEnd{ctx: ctx, w: call.Stderr}
	if c.raw {
		if len(call.Args) > 1 && call.Args[1] == "--help" {
			_, err := io.WriteString(call.Stdout, c.help())
			return err
		}
		return c.run(ctx, call, &args{operands: call.Args[1:]})
	}
	a, help, err := c.parse(call.Args[1:])
	if err != nil {
		return err
	}
	if help {
		_, err := io.WriteString(call.Stdout, c.help())
		return err
	}
	return c.run(ctx, call, a)
}

// grammar is the command's flags as internal/argv reads them: GNU
// getopt_long (docs/sandbox.md), flags among the operands, --help;
// built on first use.
func (c *command) grammar() *argv.Set {
	c.grammarOnce.Do(func() {
		set := &argv.Set{Command: c.name, Syntax: argv.GNU, Interleaved: true, HelpWords: []string{"--help"}}
		for _, f := range c.flags {
			af := argvFlag(f.short, f.long, f.arg, f.about)
			set.Flags = append(set.Flags, af)
			if c.numeric != "" && f.long == c.numeric {
				set.Numeric = af
			}
		}
		c.set = set
	})
	return c.set
}

// argvFlag is a row of a builtin's table of flags as internal/argv
// describes it.
func argvFlag(short rune, long, arg, about string) *argv.Flag {
	f := &argv.Flag{Value: arg, About: about}
	if short != 0 {
		f.Names = append(f.Names, "-"+string(short))
	}
	if long != "" {
		f.Names = append(f.Names, "--"+long)
	}
	return f
}

// parse reads argv as getopt_long does: flags and operands may mix, short
// flags cluster, a value is attached or the next word, a long name may be
// abbreviated to a unique prefix, and "--" ends the flags.
func (c *command) parse(words []string) (*args, bool, error) {
	set := c.grammar()
	read, err := set.Parse(words)
	if err != nil {
		return nil, false, flagRefusal(err)
	}
	if read.Help {
		return nil, true, nil
	}
	a := &args{set: map[string][]string{}, operands: read.Operands}
	for _, it := range read.Flags {
		key := c.flags[slices.Index(set.Flags, it.Flag)].key()
		a.set[key] = append(a.set[key], it.Value)
		a.order = append(a.order, given{key, it.Value})
	}
	return a, false, nil
}

// pool is every flag the command takes, for a refusal.
func (c *command) pool() []string { return c.grammar().Pool() }

// refuse is the command's refusal: what was wrong, and what it allows
// instead.
func (c *command) refuse(what string, allowed ...string) error {
	return &kernel.Refusal{Command: c.name, What: what, Allowed: allowed}
}

// flagRefusal is the kernel's refusal of a flag the grammar refused
// (an *argv.Error), with its parts.
func flagRefusal(err error) error {
	var ae *argv.Error
	if !errors.As(err, &ae) {
		return err
	}
	what, allowed := ae.Parts()
	return &kernel.Refusal{Command: ae.Command, What: what, Allowed: allowed}
}

func (c *command) help() string {
	return fmt.Sprintf("usage: %s %s\n\n%s\n\n%s", c.name, c.usage, c.about, c.grammar().Help())
}

// schema describes the command for agents: its words, and each flag by
// its long name (the short letter where it has none).
func (c *command) schema() json.RawMessage {
	type prop struct {
		Type        string `json:"type"`
		Description string `json:"description"`
		Items       any    `json:"items,omitempty"`
	}
	props := map[string]prop{
		"args": {Type: "array", Items: map[string]string{"type": "string"}, Description: "the words after the command's name: " + c.usage},
	}
	for _, f := range c.flags {
		p := prop{Type: "boolean", Description: f.String() + ": " + f.about}
		if f.arg != "" {
			p.Type = "string"
		}
		props[f.key()] = p
	}
	b, _ := json.Marshal(map[string]any{
		"type":                 "object",
		"description":          c.about,
		"properties":           props,
		"additionalProperties": false,
	})
	return b
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// errText renders an error as GNU tools print it after the name:
// "FILE: No such file or directory".
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + reason(pe.Err)
	}
	return reason(err)
}

// asNamed is err with name as its path, the file as the command names it
// (an operand as given, a path as -r shows it), where the error says
// another.
func asNamed(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != name {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

// reason is strerror(3)'s wording for an errno, the error's own text
// otherwise.
func reason(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}

// failf prints "NAME: MESSAGE" on the call's stderr.
func failf(c *kernel.Call, format string, a ...any) {
	fmt.Fprintf(c.Stderr, "%s: %s\n", c.Args[0], fmt.Sprintf(format, a...))
}

// quietAfterEnd writes to w until ctx ends, and drops what comes after.
type quietAfterEnd struct {
	ctx context.Context
	w   io.Writer
}

func (q quietAfterEnd) Write(p []byte) (int, error) {
	if q.ctx.Err() != nil {
		return len(p), nil
	}
	return q.w.Write(p)
}

// interrupted reports whether err is how ctx's end reached a read or a
// write: ctx's own error, or the deadline the kernel sets on a FIFO or a
// pipe when the call ends.
func interrupted(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded))
}

// openInput opens an operand for reading: "-" is the call's stdin (empty
// when it has none).
func openInput(ctx context.Context, c *kernel.Call, name string) (io.ReadCloser, error) {
	if name == "-" {
		if c.Stdin == nil {
			return io.NopCloser(strings.NewReader("")), nil
		}
		return io.NopCloser(c.Stdin), nil
	}
	f, err := c.Opener().Open(ctx, name)
	if err != nil {
		return nil, err
	}
	if st, ok := f.(*os.File); ok {
		if fi, err := st.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
		}
	}
	return f, nil
}

// status is the error that ends a command with a status: nil for 0.
func status(n int) error {
	if n == 0 {
		return nil
	}
	return kernel.ExitStatus(n)
}

// lazyRegexp compiles a pattern on first use: a package's regexps cost
// nothing at start and hold no heap until a command needs them.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
