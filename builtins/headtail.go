package builtins

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdHead = &command{
	name:     "head",
	usage:    "[OPTION]... [FILE]...",
	about:    "Print the first 10 lines of each FILE (standard input when none, or for -).",
	numeric:  "lines",
	operands: "files to read; - is standard input",
	flags: []flag{
		{short: 'c', long: "bytes", arg: "[-]NUM", about: "print the first NUM bytes; with a leading -, all but the last NUM bytes"},
		{short: 'n', long: "lines", arg: "[-]NUM", about: "print the first NUM lines; with a leading -, all but the last NUM lines"},
		{short: 'q', long: "quiet", about: "never print headers giving file names"},
		{long: "silent", about: "same as --quiet"},
		{short: 'v', long: "verbose", about: "always print headers giving file names"},
		{short: 'z', long: "zero-terminated", about: "line delimiter is NUL, not newline"},
	},
	run: func(ctx context.Context, c *kernel.Call, a *args) error { return runHeadTail(ctx, c, a, false) },
}

var cmdTail = &command{
	name:     "tail",
	usage:    "[OPTION]... [FILE]...",
	about:    "Print the last 10 lines of each FILE (standard input when none, or for -).",
	numeric:  "lines",
	operands: "files to read; - is standard input",
	flags: []flag{
		{short: 'c', long: "bytes", arg: "[+]NUM", about: "print the last NUM bytes; with a leading +, from byte NUM on"},
		{short: 'n', long: "lines", arg: "[+]NUM", about: "print the last NUM lines; with a leading +, from line NUM on"},
		{short: 'q', long: "quiet", about: "never print headers giving file names"},
		{long: "silent", about: "same as --quiet"},
		{short: 'v', long: "verbose", about: "always print headers giving file names"},
		{short: 'z', long: "zero-terminated", about: "line delimiter is NUL, not newline"},
	},
	run: func(ctx context.Context, c *kernel.Call, a *args) error { return runHeadTail(ctx, c, a, true) },
}

// headSpec is what head or tail prints of each file: count lines (or
// bytes), from the start, or all but the last count (head's -NUM), or the
// last count, or from the count'th on (tail's +NUM).
type headSpec struct {
	bytes   bool
	count   int64
	reverse bool // head: all but the last; tail: from the start
	delim   byte
}

func runHeadTail(ctx context.Context, c *kernel.Call, a *args, tail bool) error {
	spec := headSpec{count: 10, delim: '\n'}
	if a.has("zero-terminated") {
		spec.delim = 0
	}
	if key := a.last("lines", "bytes"); key != "" {
		spec.bytes = key == "bytes"
		what := "lines"
		if spec.bytes {
			what = "bytes"
		}
		v := a.value(key, "")
		n, reverse, err := headParseCount(v, tail)
		if err != nil {
			failf(c, "invalid number of %s: '%s'%s", what, v, err.Error())
			return status(1)
		}
		spec.count, spec.reverse = n, reverse
	}
	files := a.operands
	if len(files) == 0 {
		files = []string{"-"}
	}
	headers := len(files) > 1
	if a.has("quiet") || a.has("silent") {
		headers = false
	}
	if a.last("quiet", "silent", "verbose") == "verbose" {
		headers = true
	}

	w := newWriter(c.Stdout)
	defer freeWriter(w)
	failed, first := false, true
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			w.Flush()
			return err
		}
		r, err := openInput(ctx, c, name)
		if err != nil && !errors.Is(err, syscall.EISDIR) {
			w.Flush()
			failf(c, "cannot open '%s' for reading: %s", name, headReason(err))
			failed = true
			continue
		}
		if headers {
			shown := name
			if name == "-" {
				shown = "standard input"
			}
			if !first {
				w.WriteByte('\n')
			}
			w.WriteString("==> " + shown + " <==\n")
		}
		first = false
		if err != nil {
			w.Flush()
			failf(c, "error reading '%s': %s", name, headReason(err))
			failed = true
			continue
		}
		var rerr, werr error
		if tail {
			rerr, werr = tailCopy(ctx, w, r, spec)
		} else {
			rerr, werr = headCopy(ctx, w, r, spec)
		}
		r.Close()
		if werr != nil {
			return status(1)
		}
		if rerr != nil {
			w.Flush()
			if interrupted(ctx, rerr) {
				return rerr
			}
			failf(c, "error reading '%s': %s", name, headReason(rerr))
			failed = true
		}
	}
	if err := w.Flush(); err != nil {
		return status(1)
	}
	if failed {
		return status(1)
	}
	return nil
}

// headReason is strerror's text for err, without the path an
// *fs.PathError adds.
func headReason(err error) string {
	var pe interface{ Unwrap() error }
	if errors.As(err, &pe) {
		if inner := pe.Unwrap(); inner != nil {
			return reason(inner)
		}
	}
	return reason(err)
}

// headParseCount reads a count as GNU head and tail do: decimal digits
// with an optional multiplier suffix (b, k/K, m/M, G, T, P, E, Z, Y; with
// B for powers of 1000, iB for powers of 1024). For head a leading - asks
// for all but the last; for tail a leading + asks for from the count'th
// on, and a leading - changes nothing. The error's text is what GNU's
// message adds after the quoted number.
func headParseCount(s string, tail bool) (n int64, reverse bool, err error) {
	rest := s
	if tail {
		rest = strings.TrimLeft(rest, " \t\n\v\f\r")
		if rest != "" && (rest[0] == '+' || rest[0] == '-') {
			reverse = rest[0] == '+'
			rest = rest[1:]
		}
	} else {
		if rest != "" && rest[0] == '-' {
			reverse = true
			rest = rest[1:]
		}
		rest = strings.TrimLeft(rest, " \t\n\v\f\r")
		if rest != "" && rest[0] == '+' {
			rest = rest[1:]
		}
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false, errHeadInvalid
	}
	var v uint64
	overflow := false
	for _, d := range rest[:i] {
		if v > (math.MaxUint64-uint64(d-'0'))/10 {
			overflow = true
			break
		}
		v = v*10 + uint64(d-'0')
	}
	mult, ok := headSuffix(rest[i:])
	if !ok {
		return 0, false, errHeadInvalid
	}
	if !overflow && mult.exp > 0 {
		for range mult.exp {
			if v > math.MaxUint64/mult.base {
				overflow = true
				break
			}
			v *= mult.base
		}
	}
	if overflow {
		return 0, false, errHeadTooLarge
	}
	if v > math.MaxInt64 {
		v = math.MaxInt64
	}
	return int64(v), reverse, nil
}

var (
	errHeadInvalid  = errors.New("")
	errHeadTooLarge = headTooLargeError{}
)

// headTooLargeError is a count past what a uint64 holds, worded as
// strerror(EOVERFLOW) when it is printed rather than at init.
type headTooLargeError struct{}

func (headTooLargeError) Error() string { return ": " + reason(syscall.EOVERFLOW) }

type headMultiplier struct {
	base uint64
	exp  int
}

func headSuffix(s string) (headMultiplier, bool) {
	if s == "" {
		return headMultiplier{1, 0}, true
	}
	if s == "b" {
		return headMultiplier{512, 1}, true
	}
	exp := strings.IndexByte("kMGTPEZY", s[0]) + 1
	if s[0] == 'K' {
		exp = 1
	} else if s[0] == 'm' {
		exp = 2
	}
	if exp == 0 {
		return headMultiplier{}, false
	}
	switch s[1:] {
	case "":
		return headMultiplier{1024, exp}, true
	case "B":
		return headMultiplier{1000, exp}, true
	case "iB":
		return headMultiplier{1024, exp}, true
	}
	return headMultiplier{}, false
}

func headCopy(ctx context.Context, w *bufio.Writer, r io.Reader, s headSpec) (rerr, werr error) {
	if !s.reverse {
		if s.bytes {
			return headFirstBytes(ctx, w, r, s.count)
		}
		return headFirstLines(ctx, w, r, s.count, s.delim)
	}
	q := headQueue{keep: s.count, bytes: s.bytes, delim: s.delim}
	return q.run(ctx, r, func(b []byte) error { _, err := w.Write(b); return err })
}

func tailCopy(ctx context.Context, w *bufio.Writer, r io.Reader, s headSpec) (rerr, werr error) {
	if s.reverse {
		skip := max(s.count-1, 0)
		if s.bytes {
			if _, err := io.CopyN(io.Discard, r, skip); err != nil {
				if err == io.EOF {
					return nil, nil
				}
				return err, nil
			}
			return headCopyAll(ctx, w, r)
		}
		return tailFromLine(ctx, w, r, skip, s.delim)
	}
	q := headQueue{keep: s.count, bytes: s.bytes, delim: s.delim}
	rerr, werr = q.run(ctx, r, nil)
	if rerr == nil && werr == nil {
		_, werr = w.Write(q.buf[q.off:])
	}
	return rerr, werr
}

// headRead reads r in chunks, calling fn on each, checking ctx every so
// often; fn's error stops it as a write error.
func headRead(ctx context.Context, r io.Reader, fn func([]byte) (stop bool, err error)) (rerr, werr error) {
	buf := make([]byte, 32<<10)
	for n := 0; ; n++ {
		if n&63 == 63 {
			if err := ctx.Err(); err != nil {
				return err, nil
			}
		}
		k, err := r.Read(buf)
		if k > 0 {
			stop, werr := fn(buf[:k])
			if werr != nil {
				return nil, werr
			}
			if stop {
				return nil, nil
			}
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return err, nil
		}
	}
}

func headCopyAll(ctx context.Context, w *bufio.Writer, r io.Reader) (rerr, werr error) {
	return headRead(ctx, r, func(b []byte) (bool, error) { _, err := w.Write(b); return false, err })
}

func headFirstBytes(ctx context.Context, w *bufio.Writer, r io.Reader, n int64) (rerr, werr error) {
	if n == 0 {
		return nil, nil
	}
	return headRead(ctx, r, func(b []byte) (bool, error) {
		if int64(len(b)) >= n {
			_, err := w.Write(b[:n])
			return true, err
		}
		n -= int64(len(b))
		_, err := w.Write(b)
		return false, err
	})
}

func headFirstLines(ctx context.Context, w *bufio.Writer, r io.Reader, n int64, delim byte) (rerr, werr error) {
	if n == 0 {
		return nil, nil
	}
	return headRead(ctx, r, func(b []byte) (bool, error) {
		for i := 0; ; {
			j := bytes.IndexByte(b[i:], delim)
			if j < 0 {
				_, err := w.Write(b)
				return false, err
			}
			i += j + 1
			if n--; n == 0 {
				_, err := w.Write(b[:i])
				return true, err
			}
		}
	})
}

func tailFromLine(ctx context.Context, w *bufio.Writer, r io.Reader, skip int64, delim byte) (rerr, werr error) {
	return headRead(ctx, r, func(b []byte) (bool, error) {
		for skip > 0 {
			j := bytes.IndexByte(b, delim)
			if j < 0 {
				return false, nil
			}
			b = b[j+1:]
			skip--
		}
		_, err := w.Write(b)
		return false, err
	})
}

// headQueue holds the last keep lines (or bytes) of a stream, handing
// what falls out of it to spill (or dropping it when spill is nil). A
// final line without a delimiter counts as a line.
type headQueue struct {
	keep  int64
	bytes bool
	delim byte
	buf   []byte
	off   int   // buf[off:] is held
	ends  []int // offsets in buf just past each held delimiter
	first int   // ends[first:] are the held ones
}

func (q *headQueue) run(ctx context.Context, r io.Reader, spill func([]byte) error) (rerr, werr error) {
	rerr, werr = headRead(ctx, r, func(b []byte) (bool, error) {
		q.compact()
		start := len(q.buf)
		q.buf = append(q.buf, b...)
		if q.bytes {
			if held := int64(len(q.buf) - q.off); held > q.keep {
				return false, q.release(q.off+int(held-q.keep), spill)
			}
			return false, nil
		}
		for i := start; ; {
			j := bytes.IndexByte(q.buf[i:], q.delim)
			if j < 0 {
				break
			}
			i += j + 1
			q.ends = append(q.ends, i)
		}
		return false, q.releaseLines(spill)
	})
	if rerr != nil || werr != nil || q.bytes {
		return rerr, werr
	}
	if len(q.buf) > q.off && (len(q.ends) == q.first || q.ends[len(q.ends)-1] != len(q.buf)) {
		q.ends = append(q.ends, len(q.buf))
	}
	return nil, q.releaseLines(spill)
}

func (q *headQueue) releaseLines(spill func([]byte) error) error {
	held := int64(len(q.ends) - q.first)
	if held <= q.keep {
		return nil
	}
	q.first += int(held - q.keep)
	return q.release(q.ends[q.first-1], spill)
}

func (q *headQueue) release(to int, spill func([]byte) error) error {
	var err error
	if spill != nil {
		err = spill(q.buf[q.off:to])
	}
	q.off = to
	return err
}

// compact moves the held part to the front once the released part is
// the larger, so the buffer stays within twice what is held.
func (q *headQueue) compact() {
	if q.off == 0 || q.off < len(q.buf)-q.off {
		return
	}
	n := copy(q.buf, q.buf[q.off:])
	q.buf = q.buf[:n]
	for i := q.first; i < len(q.ends); i++ {
		q.ends[i-q.first] = q.ends[i] - q.off
	}
	q.ends = q.ends[:len(q.ends)-q.first]
	q.first, q.off = 0, 0
}
