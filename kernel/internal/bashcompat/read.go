package bashcompat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"
	"mvdan.cc/sh/v3/interp"
)

const (
	readPlain     = "rs"
	readWithValue = "adnNptu"
)

// readStatusTimeout is read's status when -t passes: 128 + SIGALRM.
const readStatusTimeout = 142

// readCall answers read as bash 5.2 does.
func readCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], readPlain, readWithValue)
	if fa.bad != "" || fa.needed != "" {
		return refuse(hc, flagRefusal("read", fa, readPlain, readWithValue))
	}
	var (
		raw           bool
		array, prompt string
		delim         byte = '\n'
		limit              = -1
		exact         bool
		timeout       time.Duration
		timeoutGiven  bool
		input         io.Reader = hc.Stdin
	)
	for _, f := range fa.flags {
		switch f.name {
		case 'r':
			raw = true
		case 'a':
			array = f.value
		case 'd':
			delim = 0
			if f.value != "" {
				delim = f.value[0]
			}
		case 'n', 'N':
			n, err := strconv.Atoi(f.value)
			if err != nil || n < 0 {
				fmt.Fprintf(hc.Stderr, "read: %s: invalid number\n", f.value)
				return StatusArgv(1)
			}
			limit, exact = n, f.name == 'N'
		case 'p':
			prompt = f.value
		case 't':
			secs, err := strconv.ParseFloat(f.value, 64)
			if err != nil || secs < 0 || math.IsNaN(secs) || strings.ContainsAny(f.value, "eExXpPiInN") {
				fmt.Fprintf(hc.Stderr, "read: %s: invalid timeout specification\n", f.value)
				return StatusArgv(1)
			}
			timeout, timeoutGiven = time.Duration(secs*float64(time.Second)), true
		case 'u':
			in, ok := fdInput(sh, hc, "read", f.value)
			if !ok {
				return StatusArgv(1)
			}
			if in != nil {
				defer in.Close()
				input = in
			}
		}
	}
	names := fa.rest
	if array != "" {
		names = []string{array}
	}
	for _, n := range names {
		if !validTarget(n, array == "") {
			io.WriteString(hc.Stderr, invalidIdentifier("read", n))
			return StatusArgv(1)
		}
	}
	if timeoutGiven && timeout == 0 {
		if inputReady(input) {
			return StatusArgv(0)
		}
		return StatusArgv(1)
	}
	if prompt != "" && isTerminal(input) {
		io.WriteString(hc.Stderr, prompt)
	}
	if limit == 0 {
		return readAssign(sh, hc, names, array != "", len(names) == 0, nil, nil, 0)
	}
	in := newInputReader(ctx, sh, input, timeout)
	line, escaped, err := readRecord(in, delim, limit, exact, raw)
	in.close()
	status := 0
	switch {
	case err == nil:
	case errors.Is(err, errReadTimeout):
		status = readStatusTimeout
	case ctx.Err() != nil:
		return StatusArgv(1)
	case errors.Is(err, errReadTooLong):
		fmt.Fprintf(hc.Stderr, "read: input longer than %d bytes without a delimiter; stopped there\n", MaxReadBytes)
		status = 1
	default:
		status = 1 // EOF, as bash: what was read is still assigned
	}
	return readAssign(sh, hc, names, array != "", len(names) == 0, line, escaped, status)
}

func readAssign(sh Shell, hc interp.HandlerContext, names []string, isArray, reply bool, line []byte, escaped []bool, status int) []string {
	ifs := ifsOf(hc)
	switch {
	case reply:
		return assignArgv(sh, hc, []string{assignScalar("REPLY", string(line))}, status)
	case isArray:
		var fields []string
		rest := stripLeadingIFSSpace(line, escaped, ifs)
		for len(rest.b) > 0 {
			var w string
			w, rest = nextField(rest, ifs)
			fields = append(fields, w)
		}
		return assignArgv(sh, hc, []string{assignArray(names[0], fields)}, status)
	}
	rest := stripLeadingIFSSpace(line, escaped, ifs)
	var assigns []string
	for i, n := range names {
		if i < len(names)-1 {
			var w string
			w, rest = nextField(rest, ifs)
			assigns = append(assigns, assignRead(hc, n, w))
			continue
		}
		// The last name takes the rest, less trailing IFS whitespace; a
		// single field keeps no delimiter after it.
		value := ""
		if len(rest.b) > 0 {
			w, after := nextField(rest, ifs)
			if len(after.b) == 0 {
				value = w
			} else {
				value = trimTrailingIFSSpace(rest, ifs).String()
			}
		}
		assigns = append(assigns, assignRead(hc, n, value))
	}
	return assignArgv(sh, hc, assigns, status)
}

// assignRead is the source that sets n, a name or an element, to value:
// nothing (and an error) for an element whose subscript assignTarget
// does not take, as bash reports a bad subscript and reads the rest.
func assignRead(hc interp.HandlerContext, n, value string) string {
	src, ok := assignTarget(hc.Env, n, value)
	if !ok {
		fmt.Fprintf(hc.Stderr, "read: `%s': bad array subscript\n", n)
		return ":"
	}
	return src
}

// ifsOf is the command's IFS, unset meaning space, tab and newline.
func ifsOf(hc interp.HandlerContext) string {
	v := hc.Env.Get("IFS")
	if !v.IsSet() {
		return " \t\n"
	}
	return v.String()
}

// readRecord reads up to the delimiter (dropped), limit characters (or
// exactly that many with exact, delimiters included), end of input or
// an error. Without raw, a backslash quotes the next byte (marked in
// escaped) and a backslash-newline is dropped.
func readRecord(in *inputReader, delim byte, limit int, exact, raw bool) ([]byte, []bool, error) {
	var line []byte
	var escaped []bool
	chars := 0
	esc := false
	for limit < 0 || chars < limit {
		if len(line) >= MaxReadBytes {
			return line, escaped, errReadTooLong
		}
		b, err := in.readByte()
		if err != nil {
			return line, escaped, err
		}
		if b == 0 && delim != 0 {
			// bash drops NUL bytes, and reads /dev/zero until its
			// deadline; they hold no memory.
			continue
		}
		switch {
		case esc:
			esc = false
			if b == '\n' {
				continue
			}
			line, escaped = append(line, b), append(escaped, true)
		case !raw && b == '\\':
			esc = true
			continue
		case b == delim && !exact:
			return line, escaped, nil
		default:
			line, escaped = append(line, b), append(escaped, false)
		}
		if b >= 0xc0 {
			// The rest of a multibyte character belongs to this one.
			need := 1
			if b >= 0xe0 {
				need = 2
			}
			if b >= 0xf0 {
				need = 3
			}
			for ; need > 0; need-- {
				c, err := in.readByte()
				if err != nil {
					return line, escaped, err
				}
				line, escaped = append(line, c), append(escaped, false)
				if c&0xc0 != 0x80 {
					break
				}
			}
		}
		chars++
	}
	return line, escaped, nil
}

// ifsText is part of a line read, with which bytes a backslash quoted.
type ifsText struct {
	b       []byte
	escaped []bool
}

func (t ifsText) String() string { return string(t.b) }

func isIFS(t ifsText, i int, ifs string) bool {
	return !t.escaped[i] && strings.IndexByte(ifs, t.b[i]) >= 0
}

func isIFSSpace(t ifsText, i int, ifs string) bool {
	c := t.b[i]
	return (c == ' ' || c == '\t' || c == '\n') && isIFS(t, i, ifs)
}

func stripLeadingIFSSpace(line []byte, escaped []bool, ifs string) ifsText {
	t := ifsText{line, escaped}
	i := 0
	for i < len(t.b) && isIFSSpace(t, i, ifs) {
		i++
	}
	return ifsText{t.b[i:], t.escaped[i:]}
}

func trimTrailingIFSSpace(t ifsText, ifs string) ifsText {
	n := len(t.b)
	for n > 0 && isIFSSpace(t, n-1, ifs) {
		n--
	}
	return ifsText{t.b[:n], t.escaped[:n]}
}

// nextField takes one field and the delimiter after it: IFS whitespace,
// at most one other IFS character, and IFS whitespace again.
func nextField(t ifsText, ifs string) (string, ifsText) {
	i := 0
	for i < len(t.b) && !isIFS(t, i, ifs) {
		i++
	}
	field := string(t.b[:i])
	for i < len(t.b) && isIFSSpace(t, i, ifs) {
		i++
	}
	if i < len(t.b) && isIFS(t, i, ifs) && !isIFSSpace(t, i, ifs) {
		i++
		for i < len(t.b) && isIFSSpace(t, i, ifs) {
			i++
		}
	}
	return field, ifsText{t.b[i:], t.escaped[i:]}
}

func isTerminal(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}
