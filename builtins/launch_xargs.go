package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

var launchXargs = &launcher{
	name:  "xargs",
	usage: "[-0] [-d DELIM] [-n N | -L N] [-I REPLACE] [-r] [-t] [COMMAND [ARG]...]",
	about: "Build command lines from stdin (blank-separated words with quotes, or -0/-d items) and run COMMAND (echo) with them through the session's own rules. -n: at most N arguments per command; -L: at most N input lines; -I: one command per line with REPLACE substituted; -r: run nothing on empty input; -t: print each command on stderr. Exits 123 when a command failed.",
	opts: []option{
		{short: '0', long: "null", about: "items end with a NUL byte; quotes and backslashes are not special"},
		{short: 'd', long: "delimiter", arg: "DELIM", about: "items end with DELIM (one character or an escape); quotes are not special"},
		{short: 'n', long: "max-args", arg: "N", about: "at most N arguments per command line"},
		{short: 'L', long: "max-lines", arg: "N", about: "at most N input lines per command line"},
		{short: 'I', arg: "REPLACE", about: "one command per input line, REPLACE in the arguments replaced by it"},
		{long: "replace", key: "I", arg: "REPLACE", def: "{}", about: "as -I; REPLACE is {} when not given"},
		{short: 'r', long: "no-run-if-empty", about: "run nothing when the input has no items"},
		{short: 't', long: "verbose", about: "print each command line on stderr before running it"},
	},
	addsWords:      true,
	defaultCommand: "echo",
	check: func(a *launchArgs) error {
		_, err := readXargs(a)
		return err
	},
	run: runXargs,
}

// xargsMaxChars bounds one command line, as xargs(1) does by default.
const xargsMaxChars = 128 << 10

// xargsCall is xargs's call as read.
type xargsCall struct {
	delim     int // the item separator, or -1: blanks and newlines, with quotes
	maxArgs   int
	maxLines  int
	replace   string
	replacing bool
	noEmpty   bool
	trace     bool
}

func readXargs(a *launchArgs) (xargsCall, error) {
	o := xargsCall{delim: -1, noEmpty: a.has("no-run-if-empty"), trace: a.has("verbose")}
	if a.has("null") {
		o.delim = 0
	}
	if v, ok := lastValue(a, "delimiter"); ok {
		d, ok := parseDelim(v)
		if !ok {
			return o, &kernel.Refusal{Command: "xargs", What: "invalid delimiter " + kernel.Quote(v), Allowed: []string{"one character", `an escape (\n, \t, \0, \\, \xHH, \NNN)`}}
		}
		if a.last("null", "delimiter") == "delimiter" {
			o.delim = d
		}
	}
	if v, ok := lastValue(a, "I"); ok {
		if v == "" {
			return o, &kernel.Refusal{Command: "xargs", What: "flag '-I' needs a replacement string", Allowed: []string{"-I REPLACE"}}
		}
		o.replace, o.replacing = v, true
	}
	for _, f := range []string{"max-args", "max-lines"} {
		v, ok := lastValue(a, f)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			flag := map[string]string{"max-args": "-n", "max-lines": "-L"}[f]
			return o, &kernel.Refusal{Command: "xargs", What: "invalid number " + kernel.Quote(v) + " for " + flag, Allowed: []string{"an integer of at least 1"}}
		}
	}
	// The last of -n and -L wins, as in xargs(1).
	switch a.last("max-args", "max-lines") {
	case "max-args":
		o.maxArgs, _ = strconv.Atoi(a.value("max-args", ""))
	case "max-lines":
		o.maxLines, _ = strconv.Atoi(a.value("max-lines", ""))
	}
	return o, nil
}

func parseDelim(v string) (int, bool) {
	if len(v) == 1 {
		return int(v[0]), true
	}
	if len(v) < 2 || v[0] != '\\' {
		return 0, false
	}
	switch v[1:] {
	case "n":
		return '\n', true
	case "t":
		return '\t', true
	case "r":
		return '\r', true
	case "0":
		return 0, true
	case "\\":
		return '\\', true
	case "a":
		return '\a', true
	case "b":
		return '\b', true
	case "f":
		return '\f', true
	case "v":
		return '\v', true
	}
	if v[1] == 'x' {
		n, err := strconv.ParseUint(v[2:], 16, 8)
		return int(n), err == nil && len(v) > 2
	}
	n, err := strconv.ParseUint(v[1:], 8, 8)
	return int(n), err == nil
}

func runXargs(ctx context.Context, c *kernel.Call, a *launchArgs) error {
	o, err := readXargs(a)
	if err != nil {
		return err
	}
	command := a.argv()
	if len(command) == 0 {
		command = []string{"echo"}
	}
	x := &xargsRun{ctx: ctx, call: c, o: o}
	var in io.Reader = strings.NewReader("")
	if c.Stdin != nil {
		in = c.Stdin
	}
	rd := &itemReader{r: bufio.NewReader(in), delim: o.delim, lines: o.replacing}
	var batch []string
	lines, size := 0, 0
	base := 0
	for _, a := range command {
		base += len(a) + 1
	}
	for !x.stopped {
		item, eol, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if len(batch) > 0 {
				x.run(append(command, batch...))
			}
			if x.err != nil {
				return x.err
			}
			return err
		}
		if o.replacing {
			argv := make([]string, len(command))
			for i, a := range command {
				argv[i] = strings.ReplaceAll(a, o.replace, item)
			}
			x.run(argv)
			continue
		}
		if len(batch) > 0 && base+size+len(item)+1 > xargsMaxChars {
			x.run(append(command, batch...))
			batch, lines, size = nil, 0, 0
		}
		batch = append(batch, item)
		size += len(item) + 1
		if eol {
			lines++
		}
		if o.maxArgs > 0 && len(batch) >= o.maxArgs || o.maxLines > 0 && lines >= o.maxLines {
			x.run(append(command, batch...))
			batch, lines, size = nil, 0, 0
		}
	}
	if !x.stopped && (len(batch) > 0 || !x.ran && !o.noEmpty && !o.replacing) {
		x.run(append(command, batch...))
	}
	if x.err != nil {
		return x.err
	}
	if x.status != 0 {
		return kernel.ExitStatus(x.status)
	}
	return nil
}

// xargsRun runs the command lines and keeps xargs(1)'s exit status.
type xargsRun struct {
	ctx     context.Context
	call    *kernel.Call
	o       xargsCall
	ran     bool
	stopped bool
	status  int
	err     error // the call ended
}

func (x *xargsRun) run(argv []string) {
	x.ran = true
	c := x.call
	if x.o.trace {
		fmt.Fprintln(c.Stderr, strings.Join(argv, " "))
	}
	status, err := c.Launch(x.ctx, argv, kernel.LaunchOptions{Stdout: c.Stdout, Stderr: c.Stderr})
	switch {
	case err != nil:
		x.err, x.stopped = err, true
	case status == 0:
	case status == 255:
		fmt.Fprintf(c.Stderr, "xargs: %s: exited with status 255; aborting\n", argv[0])
		x.status, x.stopped = 124, true
	case status == 126 || status == 127:
		x.status, x.stopped = status, true
	case status > 128:
		fmt.Fprintf(c.Stderr, "xargs: %s: terminated by signal %d\n", argv[0], status-128)
		x.status, x.stopped = 125, true
	default:
		x.status = 123
	}
}

// itemReader splits xargs input into items.
type itemReader struct {
	r     *bufio.Reader
	delim int  // -1: blanks and newlines separate, quotes and backslash apply
	lines bool // -I: only newlines separate; leading blanks are dropped
}

// errItemTooLong refuses an item no command line could hold, as
// xargs(1) does, before it is read whole into memory.
var errItemTooLong = errors.New("argument line too long")

var errUnmatchedQuote = errors.New("unmatched quote; by default quotes are special to xargs unless you use the -0 option")

// next returns the next item and whether it ended its input line (a line
// ending in a blank continues on the next one).
func (ir *itemReader) next() (string, bool, error) {
	if ir.delim >= 0 {
		return ir.nextDelimited()
	}
	var item []byte
	inItem := false
	var quote byte
	for {
		b, err := ir.r.ReadByte()
		if err == io.EOF {
			if quote != 0 {
				return "", false, errUnmatchedQuote
			}
			if inItem {
				return string(item), true, nil
			}
			return "", false, io.EOF
		}
		if err != nil {
			return "", false, err
		}
		if len(item) > xargsMaxChars {
			return "", false, errItemTooLong
		}
		switch {
		case quote != 0:
			if b == '\n' {
				return "", false, errUnmatchedQuote
			}
			if b == quote {
				quote = 0
				continue
			}
			item = append(item, b)
		case b == '\n':
			if inItem {
				return string(item), true, nil
			}
		case b == ' ' || b == '\t':
			if !inItem {
				continue
			}
			if !ir.lines {
				return string(item), ir.blankEndsLine(), nil
			}
			item = append(item, b)
		case b == '\'' || b == '"':
			quote, inItem = b, true
		case b == '\\':
			next, err := ir.r.ReadByte()
			if err != nil {
				return "", false, errors.New("backslash at the end of the input")
			}
			item, inItem = append(item, next), true
		default:
			item, inItem = append(item, b), true
		}
	}
}

// blankEndsLine skips the blanks after an item, and a newline after them:
// as in xargs(1), trailing blanks continue the logical line (-L). Only
// the end of the input ends the line there.
func (ir *itemReader) blankEndsLine() bool {
	for {
		b, err := ir.r.ReadByte()
		if err != nil {
			return true
		}
		switch b {
		case ' ', '\t':
			continue
		case '\n':
			// Trailing blank: the logical line goes on.
			return false
		}
		ir.r.UnreadByte()
		return false
	}
}

func (ir *itemReader) nextDelimited() (string, bool, error) {
	item, err := ir.r.ReadSlice(byte(ir.delim))
	if err == bufio.ErrBufferFull {
		long := append([]byte(nil), item...)
		for err == bufio.ErrBufferFull {
			item, err = ir.r.ReadSlice(byte(ir.delim))
			long = append(long, item...)
			if len(long) > xargsMaxChars {
				return "", false, errItemTooLong
			}
		}
		item = long
	}
	if err == io.EOF {
		if len(item) == 0 {
			return "", false, io.EOF
		}
		return string(item), true, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(item[:len(item)-1]), true, nil
}
