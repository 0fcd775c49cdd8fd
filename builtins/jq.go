package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/shelter-sh/shelter/kernel"
)

// cmdJq is jq 1.6's command line over gojq. Its words are read by
// jqParseArgs, with a scanner over the command's grammar rather than in
// one parse: --arg and its kin take two values, and --args/--jsonargs
// change what the operands after them are.
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
			return cmdJq.refuse("flag '-f' without a filter file", "-f FILE as the first operand")
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
