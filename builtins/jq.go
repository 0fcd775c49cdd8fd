package builtins

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/shelter-sh/shelter/kernel"
)

// cmdJq is jq 1.6's command line over gojq. Its words are read by
// jqParseArgs, not by the framework's flags alone: --arg and its kin take
// two values, and --args/--jsonargs change what the operands after them
// are. The flag table below serves the help, the schema and the pool.
var cmdJq = &command{
	name:  "jq",
	usage: "[OPTION]... [FILTER] [FILE]...",
	about: "Run a jq filter (gojq) over JSON read from FILEs or stdin and print each result, pretty-printed with two spaces " +
		"(-c for one line, -r for raw strings); --arg/--argjson bind $NAME, -n runs once on null, -s reads all inputs into one array.",
	operands: "the filter (unless -f), then the input files",
	raw:      true,
	flags: []flag{
		{short: 'r', long: "raw-output", about: "print strings without quotes"},
		{short: 'j', long: "join-output", about: "as -r, with no newline after each result"},
		{short: 'c', long: "compact-output", about: "print each result on one line"},
		{short: 'n', long: "null-input", about: "run the filter once with null as input"},
		{short: 's', long: "slurp", about: "read every input into one array"},
		{short: 'e', long: "exit-status", about: "exit 1 when the last result is false or null, 4 when there is none"},
		{short: 'S', long: "sort-keys", about: "sort object keys (they always are: see docs/sandbox.md)"},
		{short: 'a', long: "ascii-output", about: "escape every non-ASCII character as \\uXXXX"},
		{short: 'M', long: "monochrome-output", about: "no colour (the only mode)"},
		{short: 'R', long: "raw-input", about: "read each line as a string (with -s, all input as one string)"},
		{short: 'f', long: "from-file", about: "read the filter from the first operand, a file"},
		{long: "tab", about: "indent with a tab"},
		{long: "indent", arg: "N", about: "indent with N spaces (-1 to 7; 0 is compact)"},
		{long: "arg", arg: "NAME VALUE", about: "bind $NAME to the string VALUE"},
		{long: "argjson", arg: "NAME JSON", about: "bind $NAME to the JSON value"},
		{long: "slurpfile", arg: "NAME FILE", about: "bind $NAME to an array of the JSON values in FILE"},
		{long: "rawfile", arg: "NAME FILE", about: "bind $NAME to the text of FILE"},
		{long: "args", about: "the operands after the filter are strings for $ARGS.positional"},
		{long: "jsonargs", about: "the operands after the filter are JSON values for $ARGS.positional"},
	},
}

// The run is set apart: it reads cmdJq's own flag table.
func init() { cmdJq.run = runJq }

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

// jqParseArgs reads argv as jq 1.6 does, with getopt_long's conveniences
// (clustered short flags, --long=value, unique prefixes, --).
func jqParseArgs(ctx context.Context, c *kernel.Call, argv []string) (*jqOptions, error) {
	o := &jqOptions{pretty: true, indent: 2, named: map[string]any{}, positional: []any{}}
	const (
		asFiles = iota
		asStrings
		asJSON
	)
	mode, done := asFiles, false
	next := func(i *int, what string) (string, error) {
		if *i+1 >= len(argv) {
			return "", cmdJq.refuse("flag '--%s' needs %s", what, flagArg(what))
		}
		*i++
		return argv[*i], nil
	}
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		switch {
		case w == "--" && !done:
			done = true
		case strings.HasPrefix(w, "--") && !done:
			name, v, hasV := strings.Cut(w[2:], "=")
			f, err := cmdJq.long(name)
			if err != nil {
				return nil, err
			}
			if f.arg == "" && hasV {
				return nil, cmdJq.refuse("flag '--%s' takes no value", f.long)
			}
			switch f.long {
			case "tab":
				o.tab, o.pretty = true, true
			case "args":
				mode = asStrings
			case "jsonargs":
				mode = asJSON
			case "indent":
				if !hasV {
					if v, err = next(&i, f.long); err != nil {
						return nil, err
					}
				}
				n := jqAtoi(v)
				if n < -1 || n > 7 {
					return nil, cmdJq.refuse("--indent takes a number between -1 and 7")
				}
				o.indent, o.tab = n, n == -1
			case "arg", "argjson", "slurpfile", "rawfile":
				if !hasV {
					if v, err = next(&i, f.long); err != nil {
						return nil, err
					}
				}
				val, err := next(&i, f.long)
				if err != nil {
					return nil, err
				}
				bound, err := jqBindValue(ctx, c, f.long, v, val)
				if err != nil {
					return nil, err
				}
				o.bind(v, bound)
			default:
				jqSwitch(o, f.short)
			}
		case len(w) > 1 && w[0] == '-' && !done:
			for _, r := range w[1:] {
				if _, ok := cmdJq.short(r); !ok {
					return nil, cmdJq.refuse("unknown flag '-%c'; allowed: %s", r, cmdJq.pool())
				}
				jqSwitch(o, r)
			}
		case !o.haveProgram:
			o.program, o.haveProgram = w, true
		case mode == asStrings:
			o.positional = append(o.positional, w)
		case mode == asJSON:
			v, err := jqParseText(w)
			if err != nil {
				return nil, &jqFail{"jq: invalid JSON text passed to --jsonargs", true}
			}
			o.positional = append(o.positional, v)
		default:
			o.files = append(o.files, w)
		}
	}
	return o, nil
}

func flagArg(long string) string {
	f, _ := cmdJq.long(long)
	return f.arg
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

func runJq(ctx context.Context, c *kernel.Call, _ *args) error {
	o, err := jqParseArgs(ctx, c, c.Args[1:])
	if err != nil {
		var fail *jqFail
		if errors.As(err, &fail) {
			fmt.Fprintln(c.Stderr, fail.line)
			if fail.usage {
				io.WriteString(c.Stderr, jqUsageHint)
			}
			return status(2)
		}
		return err
	}
	if o.fromFile {
		if !o.haveProgram {
			return cmdJq.refuse("flag '-f' needs a filter file as the first operand")
		}
		data, err := jqReadFile(ctx, c, o.program)
		if err != nil {
			fmt.Fprintf(c.Stderr, "jq: Could not open %s: %s\n", o.program, jqReason(err))
			return status(2)
		}
		o.program = string(data)
	} else if !o.haveProgram {
		// jq 1.6 without a tty on either end runs "." when given no filter.
		o.program = "."
	}
	o.names = append(o.names, "$ARGS")
	o.values = append(o.values, map[string]any{"named": o.named, "positional": o.positional})

	files := o.files
	if len(files) == 0 {
		files = []string{"-"}
	}
	in := &jqInputs{ctx: ctx, call: c, files: files, raw: o.rawInput, slurp: o.slurp}
	r := &jqRun{call: c, opts: o, in: in, out: bufio.NewWriterSize(c.Stdout, 64<<10)}
	r.enc = jqEncoder{w: r.out, ascii: o.ascii}
	switch {
	case !o.pretty || (!o.tab && o.indent == 0):
	case o.tab:
		r.enc.indent = "\t"
	default:
		r.enc.indent = strings.Repeat(" ", o.indent)
	}

	code, err := r.compile()
	if err != nil {
		fmt.Fprint(c.Stderr, err)
		return status(3)
	}
	return status(r.execute(ctx, code))
}

// jq 1.6's statuses for one run of the filter on one input.
const (
	jqOK       = 0
	jqNullKind = -1 // the last result was false or null
	jqNoOutput = -4 // the run produced nothing
	jqRunError = 5
)

// jqRun is one jq call: its options, inputs and output.
type jqRun struct {
	call    *kernel.Call
	opts    *jqOptions
	in      *jqInputs
	out     *bufio.Writer
	enc     jqEncoder
	outputs int
	first   []byte // the first result, compact, for Result.Data
	writeOK bool
	halted  bool
	halt    int
}

func (r *jqRun) compile() (*gojq.Code, error) {
	q, err := gojq.Parse(r.opts.program)
	if err != nil {
		line := 1
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			line += strings.Count(r.opts.program[:min(pe.Offset, len(r.opts.program))], "\n")
		}
		return nil, r.compileError(err, line)
	}
	c := r.call
	code, err := gojq.Compile(q,
		gojq.WithEnvironLoader(func() []string { return slices.Clone(c.Env) }),
		gojq.WithVariables(r.opts.names),
		gojq.WithInputIter(r.in),
		gojq.WithFunction("debug", 0, 0, func(v any, _ []any) any {
			fmt.Fprintf(c.Stderr, "[\"DEBUG:\",%s]\n", jqCompact(v))
			return v
		}),
		gojq.WithFunction("stderr", 0, 0, func(v any, _ []any) any {
			io.WriteString(c.Stderr, jqCompact(v))
			return v
		}),
		gojq.WithFunction("input_filename", 0, 0, func(any, []any) any {
			if r.in.cur == nil {
				return nil
			}
			return r.in.cur.name
		}),
		gojq.WithFunction("input_line_number", 0, 0, func(any, []any) any {
			if r.in.cur == nil {
				return 0
			}
			return r.in.cur.lineNumber(r.in.raw)
		}),
	)
	if err != nil {
		return nil, r.compileError(err, 1)
	}
	return code, nil
}

// jqCompileError is jq's text for a filter that does not compile, printed
// as it is.
type jqCompileError string

func (e jqCompileError) Error() string { return string(e) }

// compileError has jq's three lines for a filter that does not compile.
func (r *jqRun) compileError(err error, line int) error {
	return jqCompileError(fmt.Sprintf("jq: error: %s at <top-level>, line %d:\n%s\njq: 1 compile error\n", err, line, r.opts.program))
}

func (r *jqRun) execute(ctx context.Context, code *gojq.Code) int {
	ret := jqOK
	r.writeOK = true
	if r.opts.nullInput {
		ret = r.process(ctx, code, nil)
	} else {
		for !r.halted && r.writeOK && ctx.Err() == nil {
			v, err := r.in.read()
			if err == io.EOF {
				break
			}
			if err != nil {
				fmt.Fprintf(r.call.Stderr, "parse error: %s\n", err)
				ret = 4
				break
			}
			ret = r.process(ctx, code, v)
		}
	}
	if err := r.out.Flush(); err != nil {
		r.writeOK = false
	}
	if r.in.fileErr {
		ret = 2
	}
	if r.outputs == 1 && !r.opts.raw {
		r.call.SetData(r.first)
	}
	switch {
	case r.halted:
		return r.halt
	case !r.writeOK:
		return 1
	case ctx.Err() != nil:
		return 130
	case !r.opts.exitStatus && ret < 0:
		return 0
	}
	if ret < 0 {
		return -ret
	}
	return ret
}

// process runs the filter on one input and prints its results.
func (r *jqRun) process(ctx context.Context, code *gojq.Code, v any) int {
	ret := jqNoOutput
	iter := code.RunWithContext(ctx, v, r.opts.values...)
	for {
		v, ok := iter.Next()
		if !ok {
			return ret
		}
		if err, ok := v.(error); ok {
			var ve gojq.ValueError
			var halt *gojq.HaltError
			if errors.As(err, &ve) && ve.Value() == nil && !errors.As(err, &halt) {
				// jq 1.6 takes error(null) for empty.
				continue
			}
			return r.fail(err, ret)
		}
		if !r.print(v) {
			return ret
		}
		ret = jqOK
		if v == nil || v == false {
			ret = jqNullKind
		}
	}
}

func (r *jqRun) print(v any) bool {
	r.outputs++
	if r.outputs == 1 && !r.opts.raw {
		r.first = []byte(jqCompact(v))
	}
	if s, ok := v.(string); ok && r.opts.raw && !r.opts.ascii {
		r.out.WriteString(s)
	} else {
		r.enc.encode(v, 0)
	}
	if !r.opts.join {
		r.out.WriteByte('\n')
	}
	if r.out.Buffered() > 32<<10 {
		if err := r.out.Flush(); err != nil {
			r.writeOK = false
			return false
		}
	}
	return true
}

// fail reports an error the filter raised; ret is the run's status so far.
func (r *jqRun) fail(err error, ret int) int {
	if r.in.ctx.Err() != nil {
		return ret
	}
	var halt *gojq.HaltError
	if errors.As(err, &halt) {
		r.out.Flush()
		switch v := halt.Value().(type) {
		case nil:
		case string:
			io.WriteString(r.call.Stderr, v)
		default:
			fmt.Fprintln(r.call.Stderr, jqCompact(v))
		}
		r.halted, r.halt = true, halt.ExitCode()
		return ret
	}
	msg := err.Error()
	var ve gojq.ValueError
	if errors.As(err, &ve) {
		switch v := ve.Value().(type) {
		case string:
			msg = v
		default:
			msg = "(not a string): " + jqCompact(v)
		}
	}
	sep := ": "
	if strings.HasPrefix(msg, "(not a string)") {
		sep = " "
	}
	r.out.Flush()
	fmt.Fprintf(r.call.Stderr, "jq: error (at %s)%s%s\n", r.in.location(), sep, msg)
	return jqRunError
}

// jqInputs is the stream of inputs over every operand, in order; it is
// also the iterator of gojq's input and inputs.
type jqInputs struct {
	ctx         context.Context
	call        *kernel.Call
	files       []string
	next        int
	cur         *jqSource
	closer      io.Closer
	raw, slurp  bool
	slurped     bool
	fileErr     bool
	parseFailed bool
}

// location is where the latest input came from, as jq's errors say it.
func (in *jqInputs) location() string {
	if in.cur == nil {
		return "<unknown>"
	}
	return fmt.Sprintf("%s:%d", in.cur.name, in.cur.lineNumber(in.raw))
}

// Next serves gojq's input and inputs.
func (in *jqInputs) Next() (any, bool) {
	v, err := in.read()
	if err == io.EOF {
		return nil, false
	}
	if err != nil {
		return err, true
	}
	return v, true
}

// read returns the next input: io.EOF after the last, or a parse error
// (after which there are no more).
func (in *jqInputs) read() (any, error) {
	if in.parseFailed {
		return nil, io.EOF
	}
	if in.slurp {
		if in.slurped {
			return nil, io.EOF
		}
		in.slurped = true
		if in.raw {
			var b strings.Builder
			for in.advance() {
				in.cur.readAll(&b)
			}
			return jqValidString([]byte(b.String())), nil
		}
		all := []any{}
		for {
			v, err := in.one()
			if err == io.EOF {
				return all, nil
			}
			if err != nil {
				return nil, err
			}
			all = append(all, v)
		}
	}
	return in.one()
}

func (in *jqInputs) one() (any, error) {
	for {
		if in.cur != nil && !in.cur.done {
			var v any
			var err error
			if in.raw {
				v, err = in.cur.line()
			} else {
				v, err = in.cur.value()
			}
			if err == nil {
				return v, nil
			}
			if err != io.EOF {
				in.parseFailed = true
				return nil, err
			}
			in.cur.done = true
		}
		if !in.advance() {
			return nil, io.EOF
		}
	}
}

// advance opens the next operand that opens; false when none is left.
// An operand that does not open is reported and makes the status 2.
func (in *jqInputs) advance() bool {
	for in.next < len(in.files) {
		if in.ctx.Err() != nil {
			return false
		}
		if in.closer != nil {
			in.closer.Close()
			in.closer = nil
		}
		name := in.files[in.next]
		in.next++
		f, err := openInput(in.ctx, in.call, name)
		if err != nil {
			fmt.Fprintf(in.call.Stderr, "jq: error: Could not open file %s: %s\n", name, jqReason(err))
			in.fileErr = true
			continue
		}
		in.closer = f
		if name == "-" {
			name = "<stdin>"
		}
		in.cur = &jqSource{name: name, r: f}
		return true
	}
	if in.closer != nil {
		in.closer.Close()
		in.closer = nil
	}
	return false
}

// jqValidString is data as a jq string: each byte that is not part of
// valid UTF-8 becomes U+FFFD.
func jqValidString(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	var b strings.Builder
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.Write(data[:n])
		}
		data = data[n:]
	}
	return b.String()
}

// jqCompact is v as one line of JSON.
func jqCompact(v any) string {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	e := jqEncoder{w: w}
	e.encode(v, 0)
	w.Flush()
	return b.String()
}

// jqEncoder prints values as jq 1.6 does: keys sorted (gojq's objects
// keep no order), numbers as IEEE doubles in jq's format.
type jqEncoder struct {
	w      *bufio.Writer
	indent string // "" for one line
	ascii  bool
	num    []byte
}

func (e *jqEncoder) newline(depth int) {
	e.w.WriteByte('\n')
	for range depth {
		e.w.WriteString(e.indent)
	}
}

func (e *jqEncoder) encode(v any, depth int) {
	switch v := v.(type) {
	case nil:
		e.w.WriteString("null")
	case bool:
		if v {
			e.w.WriteString("true")
		} else {
			e.w.WriteString("false")
		}
	case int:
		e.number(float64(v))
	case float64:
		e.number(v)
	case *big.Int:
		f, _ := new(big.Float).SetInt(v).Float64()
		e.number(f)
	case string:
		e.str(v)
	case []any:
		if len(v) == 0 {
			e.w.WriteString("[]")
			return
		}
		e.w.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				e.w.WriteByte(',')
			}
			if e.indent != "" {
				e.newline(depth + 1)
			}
			e.encode(x, depth+1)
		}
		if e.indent != "" {
			e.newline(depth)
		}
		e.w.WriteByte(']')
	case map[string]any:
		if len(v) == 0 {
			e.w.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		e.w.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.w.WriteByte(',')
			}
			if e.indent != "" {
				e.newline(depth + 1)
			}
			e.str(k)
			e.w.WriteByte(':')
			if e.indent != "" {
				e.w.WriteByte(' ')
			}
			e.encode(v[k], depth+1)
		}
		if e.indent != "" {
			e.newline(depth)
		}
		e.w.WriteByte('}')
	default:
		// gojq yields only the types above; anything else is printed as
		// its text rather than lost.
		e.str(fmt.Sprint(v))
	}
}

func (e *jqEncoder) number(f float64) {
	e.num = jqFormatNumber(e.num[:0], f)
	e.w.Write(e.num)
}

// jqFormatNumber appends f as jq 1.6 prints a number: the shortest digits
// that read back as f, in exponent form when the decimal point would be
// more than 15 places past them or 4 before; NaN as null, the
// infinities as the largest doubles.
func jqFormatNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "null"...)
	case math.IsInf(f, 1):
		f = math.MaxFloat64
	case math.IsInf(f, -1):
		f = -math.MaxFloat64
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0"...)
		}
		return append(b, '0')
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	if s[0] == '-' {
		b = append(b, '-')
		s = s[1:]
	}
	mant, exp, _ := bytes.Cut(s, []byte("e"))
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	x, _ := strconv.Atoi(string(exp))
	decpt := x + 1
	n := len(digits)
	switch {
	case decpt <= -4 || decpt > n+15:
		b = append(b, digits[0])
		if n > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if x < 0 {
			b = append(b, '-')
			x = -x
		} else {
			b = append(b, '+')
		}
		if x < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(x), 10)
	case decpt <= 0:
		b = append(b, "0."...)
		for range -decpt {
			b = append(b, '0')
		}
		return append(b, digits...)
	case decpt >= n:
		b = append(b, digits...)
		for range decpt - n {
			b = append(b, '0')
		}
		return b
	}
	b = append(b, digits[:decpt]...)
	b = append(b, '.')
	return append(b, digits[decpt:]...)
}

func (e *jqEncoder) str(s string) {
	const hex = "0123456789abcdef"
	w := e.w
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x7f {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			w.WriteString(s[start:i])
			switch c {
			case '"':
				w.WriteString(`\"`)
			case '\\':
				w.WriteString(`\\`)
			case '\b':
				w.WriteString(`\b`)
			case '\f':
				w.WriteString(`\f`)
			case '\n':
				w.WriteString(`\n`)
			case '\r':
				w.WriteString(`\r`)
			case '\t':
				w.WriteString(`\t`)
			default:
				w.WriteString(`\u00`)
				w.WriteByte(hex[c>>4])
				w.WriteByte(hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			w.WriteString(s[start:i])
			if e.ascii {
				w.WriteString(`\ufffd`)
			} else {
				w.WriteString("\uFFFD")
			}
			i++
			start = i
			continue
		}
		if e.ascii {
			w.WriteString(s[start:i])
			units := []rune{r}
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				units = []rune{r1, r2}
			}
			for _, u := range units {
				w.WriteString(`\u`)
				w.WriteByte(hex[u>>12&0xf])
				w.WriteByte(hex[u>>8&0xf])
				w.WriteByte(hex[u>>4&0xf])
				w.WriteByte(hex[u&0xf])
			}
			start = i + n
		}
		i += n
	}
	w.WriteString(s[start:])
	w.WriteByte('"')
}

// jqMaxDepth is jq 1.6's limit on nesting in its input.
const jqMaxDepth = 256

// jqSource reads JSON values (or lines) from one input, keeping the count
// of lines jq's error locations name.
type jqSource struct {
	name  string
	r     io.Reader
	buf   []byte
	pos   int
	eof   bool
	lines int // newlines in the bytes dropped from buf
	done  bool
}

type jqSyntaxError struct {
	msg       string
	line, col int
	atEOF     bool
}

func (e *jqSyntaxError) Error() string {
	at := ""
	if e.atEOF {
		at = " at EOF"
	}
	return fmt.Sprintf("%s%s at line %d, column %d", e.msg, at, e.line, e.col)
}

// fill reads more input, keeping buf[pos:]; false at the end.
func (s *jqSource) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		s.lines += bytes.Count(s.buf[:s.pos], []byte{'\n'})
		n := copy(s.buf, s.buf[s.pos:])
		s.buf = s.buf[:n]
		s.pos = 0
	}
	if cap(s.buf)-len(s.buf) < 4096 {
		nb := make([]byte, len(s.buf), max(64<<10, 2*cap(s.buf)))
		copy(nb, s.buf)
		s.buf = nb
	}
	for {
		n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if err != nil {
			s.eof = true
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// lineNumber is jq's line of the latest input: the newlines read, the
// one ending the current line included (jq reads its input a line at a
// time). Raw lines have consumed their newline already.
func (s *jqSource) lineNumber(raw bool) int {
	n := s.lines + bytes.Count(s.buf[:s.pos], []byte{'\n'})
	if raw {
		return n
	}
	for off := 0; ; {
		if bytes.IndexByte(s.buf[s.pos+off:], '\n') >= 0 {
			return n + 1
		}
		off = len(s.buf) - s.pos
		if !s.fill() {
			return n
		}
	}
}

func (s *jqSource) syntaxError(msg string, atEOF bool) error {
	line := s.lines + bytes.Count(s.buf[:s.pos], []byte{'\n'}) + 1
	col := s.pos - (bytes.LastIndexByte(s.buf[:s.pos], '\n') + 1)
	return &jqSyntaxError{msg: msg, line: line, col: col, atEOF: atEOF}
}

// peek skips white space and returns the next byte; false at the end.
func (s *jqSource) peek() (byte, bool) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, true
			}
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// value reads the next JSON value; io.EOF when only white space is left.
func (s *jqSource) value() (any, error) {
	if _, ok := s.peek(); !ok {
		return nil, io.EOF
	}
	return s.parse(0)
}

func (s *jqSource) parse(depth int) (any, error) {
	c, ok := s.peek()
	if !ok {
		return nil, s.syntaxError("Unfinished JSON term", true)
	}
	switch c {
	case '{', '[':
		if depth >= jqMaxDepth {
			return nil, s.syntaxError("Exceeds depth limit for parsing", false)
		}
		s.pos++
		if c == '[' {
			return s.array(depth + 1)
		}
		return s.object(depth + 1)
	case '"':
		return s.str()
	case ']', '}', ',', ':':
		s.pos++
		return nil, s.syntaxError(fmt.Sprintf("Unmatched '%c'", c), false)
	}
	return s.literal()
}

func (s *jqSource) array(depth int) (any, error) {
	a := []any{}
	if c, ok := s.peek(); ok && c == ']' {
		s.pos++
		return a, nil
	}
	for {
		v, err := s.parse(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		c, ok := s.peek()
		if !ok {
			return nil, s.syntaxError("Unfinished JSON term", true)
		}
		s.pos++
		switch c {
		case ',':
		case ']':
			return a, nil
		default:
			return nil, s.syntaxError("Expected separator between values", false)
		}
	}
}

func (s *jqSource) object(depth int) (any, error) {
	m := map[string]any{}
	if c, ok := s.peek(); ok && c == '}' {
		s.pos++
		return m, nil
	}
	for {
		c, ok := s.peek()
		if !ok {
			return nil, s.syntaxError("Unfinished JSON term", true)
		}
		if c != '"' {
			return nil, s.syntaxError("Object keys must be strings", false)
		}
		k, err := s.str()
		if err != nil {
			return nil, err
		}
		if c, ok = s.peek(); !ok {
			return nil, s.syntaxError("Unfinished JSON term", true)
		}
		if c != ':' {
			return nil, s.syntaxError("Objects must consist of key:value pairs", false)
		}
		s.pos++
		v, err := s.parse(depth)
		if err != nil {
			return nil, err
		}
		m[k.(string)] = v
		if c, ok = s.peek(); !ok {
			return nil, s.syntaxError("Unfinished JSON term", true)
		}
		s.pos++
		switch c {
		case ',':
		case '}':
			return m, nil
		default:
			return nil, s.syntaxError("Expected separator between values", false)
		}
	}
}

// str reads a string; s.buf[s.pos] is its opening quote.
func (s *jqSource) str() (any, error) {
	off := 1
	escaped := false
	for {
		i := bytes.IndexAny(s.buf[s.pos+off:], "\"\\")
		if i < 0 {
			off = len(s.buf) - s.pos
			if !s.fill() {
				s.pos = len(s.buf)
				return nil, s.syntaxError("Unfinished string", true)
			}
			continue
		}
		off += i
		if s.buf[s.pos+off] == '"' {
			break
		}
		escaped = true
		off += 2
		for s.pos+off > len(s.buf) {
			if !s.fill() {
				s.pos = len(s.buf)
				return nil, s.syntaxError("Unfinished string", true)
			}
		}
	}
	body := s.buf[s.pos+1 : s.pos+off]
	s.pos += off + 1
	if !escaped {
		return jqValidString(body), nil
	}
	return s.unescape(body)
}

func (s *jqSource) unescape(body []byte) (any, error) {
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch body[i] {
		case '"', '\\', '/':
			out = append(out, body[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := jqHex4(body[i+1:])
			if !ok {
				return nil, s.syntaxError("Invalid \\uXXXX escape", false)
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					r2, ok = jqHex4(body[i+3:])
				}
				switch d := utf16.DecodeRune(r, r2); {
				case ok && d != utf8.RuneError:
					r = d
					i += 6
				case r < 0xdc00:
					return nil, s.syntaxError("Invalid \\uXXXX\\uXXXX surrogate pair escape", false)
				default:
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, s.syntaxError("Invalid escape", false)
		}
	}
	return jqValidString(out), nil
}

func jqHex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}

// literal reads true, false, null or a number: a run of bytes up to a
// delimiter, as jq's tokenizer does.
func (s *jqSource) literal() (any, error) {
	off := 0
	for {
		for s.pos+off < len(s.buf) {
			switch s.buf[s.pos+off] {
			case ' ', '\t', '\n', '\r', '[', ']', '{', '}', ',', ':', '"':
				goto end
			}
			off++
		}
		if !s.fill() {
			break
		}
	}
end:
	tok := string(s.buf[s.pos : s.pos+off])
	s.pos += off
	atEOF := s.pos == len(s.buf) && s.eof
	switch tok {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if f, ok := jqNumber(tok); ok {
		return f, nil
	}
	if tok != "" && (tok[0] == '-' || tok[0] == '+' || tok[0] == '.' || tok[0] >= '0' && tok[0] <= '9') {
		return nil, s.syntaxError("Invalid numeric literal", atEOF)
	}
	return nil, s.syntaxError("Invalid literal", atEOF)
}

// jqNumber reads a number as strtod(3) does for jq: a sign, digits with
// an optional point, an optional exponent.
func jqNumber(tok string) (float64, bool) {
	i := 0
	if i < len(tok) && (tok[i] == '-' || tok[i] == '+') {
		i++
	}
	digits := 0
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		digits++
	}
	if i < len(tok) && tok[i] == '.' {
		for i++; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		j := i + 1
		if j < len(tok) && (tok[j] == '-' || tok[j] == '+') {
			j++
		}
		k := j
		for ; k < len(tok) && tok[k] >= '0' && tok[k] <= '9'; k++ {
		}
		if k == j {
			return 0, false
		}
		i = k
	}
	if i != len(tok) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(tok, "+"), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// line reads one line of raw input, without its newline.
func (s *jqSource) line() (any, error) {
	off := 0
	for {
		if i := bytes.IndexByte(s.buf[s.pos+off:], '\n'); i >= 0 {
			l := jqValidString(s.buf[s.pos : s.pos+off+i])
			s.pos += off + i + 1
			return l, nil
		}
		off = len(s.buf) - s.pos
		if !s.fill() {
			if off == 0 {
				return nil, io.EOF
			}
			l := jqValidString(s.buf[s.pos:])
			s.pos = len(s.buf)
			return l, nil
		}
	}
}

// readAll appends the rest of the input to b.
func (s *jqSource) readAll(b *strings.Builder) {
	for {
		b.Write(s.buf[s.pos:])
		s.pos = len(s.buf)
		if !s.fill() {
			return
		}
	}
}
