package builtins

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"syscall"

	"github.com/shelter-sh/shelter/kernel"
)

var cmdUniq = &command{
	name:     "uniq",
	usage:    "[OPTION]... [INPUT [OUTPUT]]",
	about:    "Filter adjacent matching lines from INPUT (or standard input), writing to OUTPUT (or standard output).",
	operands: "INPUT (- or none is standard input) and OUTPUT",
	flags: []flag{
		{short: 'c', long: "count", about: "prefix lines by the number of occurrences"},
		{short: 'd', long: "repeated", about: "only print duplicate lines, one for each group"},
		{short: 'u', long: "unique", about: "only print unique lines"},
		{short: 'i', long: "ignore-case", about: "ignore differences in case when comparing"},
		{short: 'f', long: "skip-fields", arg: "N", about: "avoid comparing the first N fields"},
		{short: 's', long: "skip-chars", arg: "N", about: "avoid comparing the first N characters"},
		{short: 'w', long: "check-chars", arg: "N", about: "compare no more than N characters in lines"},
		{short: 'z', long: "zero-terminated", about: "line delimiter is NUL, not newline"},
	},
	run: runUniq,
}

type uniqSpec struct {
	count, repeated, unique, fold bool
	fields, chars, check          uint64
	eol                           byte
}

// uniqNumber reads N as GNU does: a number too large means "all".
func uniqNumber(c *kernel.Call, a *args, key, what string, def uint64) (uint64, bool) {
	s := a.value(key, "")
	if !a.has(key) {
		return def, true
	}
	if !isDigits(s) {
		failf(c, "%s: %s", s, what)
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		n = math.MaxUint64
	}
	return n, true
}

func runUniq(ctx context.Context, c *kernel.Call, a *args) error {
	u := &uniqSpec{
		count: a.has("count"), repeated: a.has("repeated"), unique: a.has("unique"),
		fold: a.has("ignore-case"), eol: '\n',
	}
	if a.has("zero-terminated") {
		u.eol = 0
	}
	var ok bool
	if u.fields, ok = uniqNumber(c, a, "skip-fields", "invalid number of fields to skip", 0); !ok {
		return status(1)
	}
	if u.chars, ok = uniqNumber(c, a, "skip-chars", "invalid number of bytes to skip", 0); !ok {
		return status(1)
	}
	if u.check, ok = uniqNumber(c, a, "check-chars", "invalid number of bytes to compare", math.MaxUint64); !ok {
		return status(1)
	}
	if len(a.operands) > 2 {
		failf(c, "extra operand '%s'", a.operands[2])
		fmt.Fprintf(c.Stderr, "Try '%s --help' for more information.\n", c.Args[0])
		return status(1)
	}
	in := "-"
	if len(a.operands) > 0 {
		in = a.operands[0]
	}
	r, err := openInput(ctx, c, in)
	if errors.Is(err, syscall.EISDIR) {
		failf(c, "error reading '%s'", in)
		return status(1)
	}
	if err != nil {
		failf(c, "%s", cutFileErr(in, err))
		return status(1)
	}
	defer r.Close()
	out := c.Stdout
	if len(a.operands) == 2 && a.operands[1] != "-" {
		f, err := c.Opener().OpenFile(ctx, a.operands[1], os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			failf(c, "%s", cutFileErr(a.operands[1], err))
			return status(1)
		}
		defer f.Close()
		out = f
	}
	w := newWriter(out)
	defer freeWriter(w)
	err = u.filter(ctx, r, w)
	if werr := w.Flush(); err == nil && werr != nil {
		failf(c, "write error: %s", reason(werr))
		return status(1)
	}
	switch err.(type) {
	case nil:
		return nil
	case cutWriteError:
		return status(1)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	failf(c, "error reading '%s'", in)
	return status(1)
}

// key is the part of a line that is compared.
func (u *uniqSpec) key(line []byte) []byte {
	i := 0
	for n := u.fields; n > 0 && i < len(line); n-- {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
	}
	if rest := uint64(len(line) - i); u.chars >= rest {
		i = len(line)
	} else {
		i += int(u.chars)
	}
	line = line[i:]
	if u.check < uint64(len(line)) {
		line = line[:u.check]
	}
	return line
}

func (u *uniqSpec) same(a, b []byte) bool {
	a, b = u.key(a), u.key(b)
	if u.fold {
		return len(a) == len(b) && uniqFoldEqual(a, b)
	}
	return bytes.Equal(a, b)
}

// uniqFoldEqual compares equal-length keys folding ASCII case only, as
// memcasecmp does in the C locale.
func uniqFoldEqual(a, b []byte) bool {
	for i := range a {
		x, y := a[i], b[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func (u *uniqSpec) filter(ctx context.Context, r io.Reader, w *bufio.Writer) error {
	br := newReader(r)
	defer freeReader(br)
	var prev []byte
	have := false
	var n uint64
	var buf []byte
	var num [24]byte
	emit := func() error {
		if !have {
			return nil
		}
		if (u.repeated && n < 2) || (u.unique && n > 1) {
			return nil
		}
		// One Write a line, built in the writer's own free space.
		line := w.AvailableBuffer()
		if u.count { // "%7d ", without fmt's cost per line
			d := strconv.AppendUint(num[:0], n, 10)
			if len(d) < 7 {
				line = append(line, "       "[len(d):]...)
			}
			line = append(append(line, d...), ' ')
		}
		line = append(append(line, prev...), u.eol)
		w.Write(line)
		if w.Available() < 4096 {
			if err := w.Flush(); err != nil {
				return cutWriteError{err}
			}
		}
		return nil
	}
	for i := 0; ; i++ {
		if i&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, err := cutReadLine(br, u.eol, &buf)
		if len(line) > 0 {
			if line[len(line)-1] == u.eol {
				line = line[:len(line)-1]
			}
			if have && u.same(prev, line) {
				n++
			} else {
				if err := emit(); err != nil {
					return err
				}
				prev = append(prev[:0], line...)
				have, n = true, 1
			}
		}
		if err == io.EOF {
			return emit()
		}
		if err != nil {
			emit()
			return err
		}
	}
}
