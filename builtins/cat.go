package builtins

import (
	"bufio"
	"context"
	"io"
	"strconv"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdCat = &command{
	name:     "cat",
	usage:    "[OPTION]... [FILE]...",
	about:    "Concatenate FILEs (standard input when none, or for -) to standard output.",
	operands: "files to print; - is standard input",
	flags: []flag{
		{short: 'A', long: "show-all", about: "equivalent to -vET"},
		{short: 'b', long: "number-nonblank", about: "number nonempty output lines, overrides -n"},
		{short: 'e', about: "equivalent to -vE"},
		{short: 'E', long: "show-ends", about: "display $ at end of each line"},
		{short: 'n', long: "number", about: "number all output lines"},
		{short: 's', long: "squeeze-blank", about: "suppress repeated empty output lines"},
		{short: 't', about: "equivalent to -vT"},
		{short: 'T', long: "show-tabs", about: "display TAB characters as ^I"},
		{short: 'u', about: "(ignored)"},
		{short: 'v', long: "show-nonprinting", about: "use ^ and M- notation, except for LFD and TAB"},
	},
	run: runCat,
}

// catOptions are cat's switches once the shorthands (-A, -e, -t) are
// expanded.
type catOptions struct {
	numberAll, numberNonblank, squeeze, ends, tabs, nonprinting bool
}

func (o catOptions) plain() bool {
	return !o.numberAll && !o.numberNonblank && !o.squeeze && !o.ends && !o.tabs && !o.nonprinting
}

// catState carries across files, as GNU cat's does: a file that ends
// mid-line is continued by the next one.
type catState struct {
	lineNo     int
	atStart    bool
	blankLines int // consecutive empty lines just written
}

func runCat(ctx context.Context, c *kernel.Call, a *args) error {
	var o catOptions
	o.numberAll = a.has("number")
	o.numberNonblank = a.has("number-nonblank")
	o.squeeze = a.has("squeeze-blank")
	o.ends = a.has("show-ends") || a.has("show-all") || a.has("e")
	o.tabs = a.has("show-tabs") || a.has("show-all") || a.has("t")
	o.nonprinting = a.has("show-nonprinting") || a.has("show-all") || a.has("e") || a.has("t")
	if o.numberNonblank {
		o.numberAll = false
	}

	files := a.operands
	if len(files) == 0 {
		files = []string{"-"}
	}
	w := newWriter(c.Stdout)
	defer freeWriter(w)
	st := &catState{atStart: true}
	failed := false
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			w.Flush()
			return err
		}
		r, err := openInput(ctx, c, name)
		if err != nil {
			w.Flush()
			failf(c, "%s", errText(asNamed(err, name)))
			failed = true
			continue
		}
		var rerr, werr error
		if o.plain() {
			rerr, werr = catCopy(ctx, w, c.Stdout, r)
		} else {
			rerr, werr = catFile(ctx, w, r, o, st)
		}
		r.Close()
		if werr != nil {
			return status(1)
		}
		if rerr != nil {
			if interrupted(ctx, rerr) {
				w.Flush()
				return rerr
			}
			w.Flush()
			failf(c, "%s: %s", name, reason(rerr))
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

// catCopy copies r to w, which writes to out, unchanged, returning the
// read and the write error apart. A regular file going into a pipe is
// spliced.
func catCopy(ctx context.Context, w *bufio.Writer, out io.Writer, r io.Reader) (rerr, werr error) {
	if err := w.Flush(); err != nil {
		return nil, err
	}
	if handled, rerr, werr := spliceCopy(ctx, out, r); handled {
		return rerr, werr
	}
	chunk := getChunk()
	defer putChunk(chunk)
	buf := *chunk
	for n := 0; ; n++ {
		if n&63 == 63 {
			if err := ctx.Err(); err != nil {
				return err, nil
			}
		}
		k, err := r.Read(buf)
		if k > 0 {
			if _, err := w.Write(buf[:k]); err != nil {
				return nil, err
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

func catFile(ctx context.Context, w *bufio.Writer, r io.Reader, o catOptions, st *catState) (rerr, werr error) {
	br := newReader(r)
	defer freeReader(br)
	var num []byte
	for n := 0; ; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return err, nil
			}
		}
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if st.atStart && chunk[0] == '\n' {
				st.blankLines++
				if o.squeeze && st.blankLines > 1 {
					goto next
				}
				if o.numberAll {
					st.lineNo++
					num = catNumber(num[:0], st.lineNo)
					w.Write(num)
				}
				if o.ends {
					w.WriteByte('$')
				}
				if werr := w.WriteByte('\n'); werr != nil {
					return nil, werr
				}
				goto next
			}
			if st.atStart {
				st.blankLines = 0
				if o.numberAll || o.numberNonblank {
					st.lineNo++
					num = catNumber(num[:0], st.lineNo)
					w.Write(num)
				}
			}
			body := chunk
			ended := body[len(body)-1] == '\n'
			if ended {
				body = body[:len(body)-1]
			}
			if o.nonprinting || o.tabs {
				catVisible(w, body, o)
			} else {
				w.Write(body)
			}
			if ended {
				if o.ends {
					w.WriteByte('$')
				}
				w.WriteByte('\n')
			}
			st.atStart = ended
			if _, werr := w.Write(nil); werr != nil {
				return nil, werr
			}
		}
	next:
		switch {
		case err == nil, err == bufio.ErrBufferFull:
		case err == io.EOF:
			return nil, nil
		default:
			return err, nil
		}
	}
}

// catNumber is a line number as GNU cat prints it: right-aligned in six
// columns, then a tab.
func catNumber(b []byte, n int) []byte {
	var d [20]byte
	s := strconv.AppendInt(d[:0], int64(n), 10)
	for i := len(s); i < 6; i++ {
		b = append(b, ' ')
	}
	b = append(b, s...)
	return append(b, '\t')
}

// catVisible writes b with -v's ^ and M- notation (when asked) and tabs
// as ^I under -T.
func catVisible(w *bufio.Writer, b []byte, o catOptions) {
	start := 0
	for i, c := range b {
		if c >= 32 && c < 127 || c == '\t' && !o.tabs || !o.nonprinting && c != '\t' {
			continue
		}
		w.Write(b[start:i])
		start = i + 1
		high := c >= 128
		if high {
			w.WriteString("M-")
			c -= 128
		}
		switch {
		case c == 127:
			w.WriteString("^?")
		case c < 32 && (high || c != '\t' || o.tabs):
			w.WriteByte('^')
			w.WriteByte(c + 64)
		default:
			w.WriteByte(c)
		}
	}
	w.Write(b[start:])
}
