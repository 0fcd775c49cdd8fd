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
	"slices"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdCut = &command{
	name:     "cut",
	usage:    "OPTION... [FILE]...",
	about:    "Print selected parts of lines from each FILE to standard output.",
	operands: "files to read; - or none is standard input",
	flags: []flag{
		{short: 'b', long: "bytes", arg: "LIST", about: "select only these bytes"},
		{short: 'c', long: "characters", arg: "LIST", about: "select only these characters (bytes, as GNU cut does)"},
		{short: 'f', long: "fields", arg: "LIST", about: "select only these fields"},
		{short: 'd', long: "delimiter", arg: "DELIM", about: "use DELIM instead of TAB for field delimiter"},
		{short: 's', long: "only-delimited", about: "do not print lines not containing delimiters"},
		{long: "complement", about: "complement the set of selected bytes, characters or fields"},
		{long: "output-delimiter", arg: "STRING", about: "use STRING as the output delimiter"},
		{short: 'z', long: "zero-terminated", about: "line delimiter is NUL, not newline"},
	},
	run: runCut,
}

// A cutRange is an inclusive 1-based range of positions.
type cutRange struct{ lo, hi uint64 }

// cutUsage is a misuse GNU cut reports with a pointer to --help.
type cutUsage string

func (e cutUsage) Error() string { return string(e) }

// cutParseList reads LIST as GNU's set_fields does; pos selects the
// wording of byte/character lists.
func cutParseList(list string, pos bool) ([]cutRange, error) {
	from1 := "fields are numbered from 1"
	if pos {
		from1 = "byte/character positions are numbered from 1"
	}
	var rs []cutRange
	var value, initial uint64
	lhs, rhs, dash := false, false, false
	numStart := -1
	for i := 0; ; i++ {
		var ch byte
		if i < len(list) {
			ch = list[i]
		}
		switch {
		case i < len(list) && ch == '-':
			numStart = -1
			if dash {
				if pos {
					return nil, cutUsage("invalid byte or character range")
				}
				return nil, cutUsage("invalid field range")
			}
			dash = true
			if lhs && value == 0 {
				return nil, cutUsage(from1)
			}
			initial = 1
			if lhs {
				initial = value
			}
			value = 0
		case i == len(list) || ch == ',' || ch == ' ' || ch == '\t':
			numStart = -1
			if dash {
				dash = false
				switch {
				case !lhs && !rhs:
					return nil, cutUsage("invalid range with no endpoint: -")
				case !rhs:
					rs = append(rs, cutRange{initial, math.MaxUint64})
				case value < initial:
					return nil, cutUsage("invalid decreasing range")
				default:
					rs = append(rs, cutRange{initial, value})
				}
			} else {
				if value == 0 {
					return nil, cutUsage(from1)
				}
				rs = append(rs, cutRange{value, value})
			}
			value = 0
			if i == len(list) {
				return cutMerge(rs), nil
			}
			lhs, rhs = false, false
		case ch >= '0' && ch <= '9':
			if numStart < 0 {
				numStart = i
			}
			if dash {
				rhs = true
			} else {
				lhs = true
			}
			d := uint64(ch - '0')
			if value > (math.MaxUint64-d)/10 || value*10+d == math.MaxUint64 {
				end := numStart
				for end < len(list) && list[end] >= '0' && list[end] <= '9' {
					end++
				}
				if pos {
					return nil, cutUsage(fmt.Sprintf("byte/character offset '%s' is too large", list[numStart:end]))
				}
				return nil, cutUsage(fmt.Sprintf("field number '%s' is too large", list[numStart:end]))
			}
			value = value*10 + d
		default:
			if pos {
				return nil, cutUsage(fmt.Sprintf("invalid byte/character position '%s'", list[i:]))
			}
			return nil, cutUsage(fmt.Sprintf("invalid field value '%s'", list[i:]))
		}
	}
}

// cutMerge sorts the ranges and joins those that overlap (not those that
// merely touch: GNU prints an output delimiter between 1 and 2 in 1,2).
func cutMerge(rs []cutRange) []cutRange {
	slices.SortFunc(rs, func(a, b cutRange) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

func cutComplement(rs []cutRange) []cutRange {
	var out []cutRange
	if rs[0].lo > 1 {
		out = append(out, cutRange{1, rs[0].lo - 1})
	}
	for i := 1; i < len(rs); i++ {
		if rs[i-1].hi+1 != rs[i].lo {
			out = append(out, cutRange{rs[i-1].hi + 1, rs[i].lo - 1})
		}
	}
	if last := rs[len(rs)-1].hi; last < math.MaxUint64 {
		out = append(out, cutRange{last + 1, math.MaxUint64})
	}
	return out
}

type cutSpec struct {
	ranges   []cutRange
	fields   bool
	delim    byte
	outDelim []byte
	outSet   bool
	only     bool
	eol      byte
}

func runCut(ctx context.Context, c *kernel.Call, a *args) error {
	spec, err := cutConfigure(a)
	if err != nil {
		failf(c, "%s", err)
		fmt.Fprintf(c.Stderr, "Try '%s --help' for more information.\n", c.Args[0])
		return status(1)
	}
	w := newWriter(c.Stdout)
	defer freeWriter(w)
	names := a.operands
	if len(names) == 0 {
		names = []string{"-"}
	}
	rc := 0
	for _, name := range names {
		f, err := openInput(ctx, c, name)
		if err != nil {
			w.Flush()
			failf(c, "%s", cutFileErr(name, err))
			rc = 1
			continue
		}
		err = spec.cut(ctx, f, w)
		f.Close()
		var we cutWriteError
		switch {
		case errors.As(err, &we):
			return status(1)
		case ctx.Err() != nil:
			w.Flush()
			return ctx.Err()
		case err != nil:
			w.Flush()
			failf(c, "%s: %s", name, reason(err))
			rc = 1
		}
	}
	if err := w.Flush(); err != nil {
		return status(1)
	}
	return status(rc)
}

func cutConfigure(a *args) (*cutSpec, error) {
	s := &cutSpec{delim: '\t', eol: '\n'}
	var list string
	kinds := 0
	for _, k := range []string{"bytes", "characters", "fields"} {
		if a.has(k) {
			kinds++
			list = a.value(k, "")
		}
	}
	if kinds > 1 || a.count("bytes")+a.count("characters")+a.count("fields") > 1 {
		return nil, cutUsage("only one list may be specified")
	}
	if kinds == 0 {
		return nil, cutUsage("you must specify a list of bytes, characters, or fields")
	}
	s.fields = a.has("fields")
	if a.has("delimiter") {
		if !s.fields {
			return nil, cutUsage("an input delimiter may be specified only when operating on fields")
		}
		d := a.value("delimiter", "")
		if len(d) > 1 {
			return nil, cutUsage("the delimiter must be a single character")
		}
		s.delim = 0
		if d != "" {
			s.delim = d[0]
		}
	}
	if a.has("only-delimited") && !s.fields {
		return nil, cutUsage("suppressing non-delimited lines makes sense\n\tonly when operating on fields")
	}
	rs, err := cutParseList(list, !s.fields)
	if err != nil {
		return nil, err
	}
	if a.has("complement") {
		rs = cutComplement(rs)
	}
	s.ranges = rs
	s.only = a.has("only-delimited")
	if a.has("zero-terminated") {
		s.eol = 0
	}
	s.outDelim = []byte{s.delim}
	if a.has("output-delimiter") {
		s.outSet = true
		s.outDelim = []byte(a.value("output-delimiter", ""))
		if len(s.outDelim) == 0 {
			s.outDelim = []byte{0}
		}
	}
	return s, nil
}

// cutWriteError marks a failed write: the reader is gone, so cut stops.
type cutWriteError struct{ error }

func (s *cutSpec) cut(ctx context.Context, r io.Reader, w *bufio.Writer) error {
	br := newReader(r)
	defer freeReader(br)
	var buf []byte
	for n := 0; ; n++ {
		if n&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, err := cutReadLine(br, s.eol, &buf)
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if line[len(line)-1] == s.eol {
			line = line[:len(line)-1]
		}
		if s.fields {
			s.cutFields(line, w)
		} else {
			s.cutBytes(line, w)
		}
		if w.Available() < 4096 {
			if err := w.Flush(); err != nil {
				return cutWriteError{err}
			}
		}
		if err != nil && err != io.EOF {
			return err
		}
	}
}

func (s *cutSpec) cutBytes(line []byte, w *bufio.Writer) {
	n := uint64(len(line))
	first := true
	for _, r := range s.ranges {
		if r.lo > n {
			break
		}
		if s.outSet && !first {
			w.Write(s.outDelim)
		}
		first = false
		w.Write(line[r.lo-1 : min(r.hi, n)])
	}
	w.WriteByte(s.eol)
}

func (s *cutSpec) cutFields(line []byte, w *bufio.Writer) {
	if bytes.IndexByte(line, s.delim) < 0 {
		if !s.only {
			w.Write(line)
			w.WriteByte(s.eol)
		}
		return
	}
	ri := 0
	printed := false
	for idx := uint64(1); ; idx++ {
		end := bytes.IndexByte(line, s.delim)
		field := line
		if end >= 0 {
			field = line[:end]
		}
		for ri < len(s.ranges) && s.ranges[ri].hi < idx {
			ri++
		}
		if ri == len(s.ranges) {
			break
		}
		if s.ranges[ri].lo <= idx {
			if printed {
				w.Write(s.outDelim)
			}
			w.Write(field)
			printed = true
		}
		if end < 0 {
			break
		}
		line = line[end+1:]
	}
	w.WriteByte(s.eol)
}

// cutReadLine returns the next line with its terminator (none on a last
// line that lacks it). The slice is valid until the next call; buf holds
// a line longer than the reader's buffer.
func cutReadLine(r *bufio.Reader, eol byte, buf *[]byte) ([]byte, error) {
	line, err := r.ReadSlice(eol)
	if err != bufio.ErrBufferFull {
		return line, err
	}
	*buf = append((*buf)[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = r.ReadSlice(eol)
		*buf = append(*buf, line...)
	}
	return *buf, err
}

// cutFileErr is "NAME: REASON" for a failed open, naming the file as the
// script did (the opener's error may carry the absolute path). sort, uniq
// and diff use it too.
func cutFileErr(name string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return name + ": " + reason(pe.Err)
	}
	return name + ": " + reason(err)
}
