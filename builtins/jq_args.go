package builtins

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/kernel"
)

// jqOptions is a parsed jq command line.
type jqOptions struct {
	raw, join, nullInput, slurp, exitStatus, ascii, rawInput, fromFile bool
	pretty, tab                                                        bool
	indent                                                             int
	program                                                            string
	haveProgram                                                        bool
	files                                                              []string
	names                                                              []string // variable names, "$" included, in order
	values                                                             []any
	named                                                              map[string]any
	positional                                                         []any
}

func (o *jqOptions) bind(name string, v any) {
	if i := slices.Index(o.names, "$"+name); i >= 0 {
		o.values[i] = v
	} else {
		o.names = append(o.names, "$"+name)
		o.values = append(o.values, v)
	}
	o.named[name] = v
}

// jqFail is a failure before the filter runs: its line is printed as it
// is, and the call ends with status 2, as jq's usage errors do.
type jqFail struct {
	line  string
	usage bool // jq follows the line with jqUsageHint
}

const jqUsageHint = "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq\n"

func (e *jqFail) Error() string { return e.line }

// jqParseArgs reads the words after the name as jq 1.6 does, with the
// getopt_long conveniences of cmdJq's grammar: clustered switches (-rc),
// --long=value, unique prefixes, "--", flags among the operands. --arg
// and its kin take a second word, whatever it is; --args and --jsonargs
// change what the operands after the filter are. A --help past the first
// word (Run reads that one) is an unknown flag.
func jqParseArgs(ctx context.Context, c *kernel.Call, words []string) (*jqOptions, error) {
	o := &jqOptions{pretty: true, indent: 2, named: map[string]any{}, positional: []any{}}
	set := *cmdJq.grammar()
	set.HelpWords = nil
	sc := set.Scan(words)
	mode := jqAsFiles
	for {
		it, ok := sc.Next()
		if !ok {
			return o, nil
		}
		switch it.Kind {
		case argv.Refused:
			return nil, flagRefusal(it.Err)
		case argv.Operand:
			if err := o.operand(it.Word, mode); err != nil {
				return nil, err
			}
		case argv.FlagGiven:
			f := cmdJq.flags[slices.Index(set.Flags, it.Flag)]
			switch f.long {
			case "tab":
				o.tab, o.pretty = true, true
			case "args":
				mode = jqAsStrings
			case "jsonargs":
				mode = jqAsJSON
			case "indent":
				n := jqAtoi(it.Value)
				if n < -1 || n > 7 {
					return nil, cmdJq.refuse("invalid --indent "+kernel.Quote(it.Value), "a number from -1 to 7")
				}
				o.indent, o.tab = n, n == -1
			case "arg", "argjson", "slurpfile", "rawfile":
				// The grammar read the first word (NAME); the second is
				// jq's.
				val, _, ok := sc.Take()
				if !ok {
					return nil, flagRefusal(&argv.Error{Command: set.Command, Problem: argv.MissingValue,
						Word: it.Name, Allowed: []string{it.Name + " " + it.Flag.Value}})
				}
				bound, err := jqBindValue(ctx, c, f.long, it.Value, val)
				if err != nil {
					return nil, err
				}
				o.bind(it.Value, bound)
			default:
				jqSwitch(o, f.short)
			}
		}
	}
}

// jqMode is what the operands after the filter are.
type jqMode int

const (
	jqAsFiles   jqMode = iota // input files
	jqAsStrings               // strings for $ARGS.positional (--args)
	jqAsJSON                  // JSON texts for $ARGS.positional (--jsonargs)
)

// operand takes a word that is no flag: the filter first, then an input
// file or a positional value, as mode says.
func (o *jqOptions) operand(w string, mode jqMode) error {
	switch {
	case !o.haveProgram:
		o.program, o.haveProgram = w, true
	case mode == jqAsStrings:
		o.positional = append(o.positional, w)
	case mode == jqAsJSON:
		v, err := jqParseText(w)
		if err != nil {
			return &jqFail{"jq: invalid JSON text passed to --jsonargs", true}
		}
		o.positional = append(o.positional, v)
	default:
		o.files = append(o.files, w)
	}
	return nil
}

func jqSwitch(o *jqOptions, r rune) {
	switch r {
	case 'r':
		o.raw = true
	case 'j':
		o.raw, o.join = true, true
	case 'c':
		o.pretty, o.tab = false, false
	case 'n':
		o.nullInput = true
	case 's':
		o.slurp = true
	case 'e':
		o.exitStatus = true
	case 'a':
		o.ascii = true
	case 'R':
		o.rawInput = true
	case 'f':
		o.fromFile = true
	}
}

// jqAtoi is atoi(3), which jq 1.6 reads --indent with: leading blanks, a
// sign, the digits that follow; 0 when there are none.
func jqAtoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1000; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// jqBindValue is the value of --arg, --argjson, --slurpfile or --rawfile.
func jqBindValue(ctx context.Context, c *kernel.Call, flag, name, val string) (any, error) {
	switch flag {
	case "arg":
		return val, nil
	case "argjson":
		v, err := jqParseText(val)
		if err != nil {
			return nil, &jqFail{"jq: invalid JSON text passed to --argjson", true}
		}
		return v, nil
	}
	data, err := jqReadFile(ctx, c, val)
	if err != nil {
		return nil, &jqFail{line: fmt.Sprintf("jq: Bad JSON in --%s %s %s: Could not open %s: %s", flag, name, val, val, jqReason(err))}
	}
	if flag == "rawfile" {
		return jqValidString(data), nil
	}
	src := &jqSource{name: val, r: bytes.NewReader(data)}
	all := []any{}
	for {
		v, err := src.value()
		if err == io.EOF {
			return all, nil
		}
		if err != nil {
			return nil, &jqFail{line: fmt.Sprintf("jq: Bad JSON in --slurpfile %s %s: %s", name, val, err)}
		}
		all = append(all, v)
	}
}

func jqReadFile(ctx context.Context, c *kernel.Call, name string) ([]byte, error) {
	f, err := openInput(ctx, c, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// jqReason is the strerror part of an open's failure, without the name.
func jqReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return reason(pe.Err)
	}
	return reason(err)
}

// jqParseText parses a whole word as exactly one JSON value.
func jqParseText(s string) (any, error) {
	src := &jqSource{r: strings.NewReader(s)}
	v, err := src.value()
	if err != nil {
		return nil, err
	}
	if _, err := src.value(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return v, nil
}
