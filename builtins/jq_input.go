package builtins

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/shelter-sh/shelter/kernel"
)

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
