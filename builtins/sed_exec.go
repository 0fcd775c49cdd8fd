package builtins

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"

	"github.com/shelter-sh/shelter/kernel"
)

// sedRun is one sed call's state: the program, the spaces and where
// output goes.
type sedRun struct {
	ctx   context.Context
	c     *kernel.Call
	cmds  []*sedCmd
	quiet bool
	delim byte

	in  *sedInput
	out *sedOut

	ps, hold []byte
	psNL     bool // the line in ps ended with a delimiter
	scratch  []byte
	flat     []int
	locs     [][]int
	appendQ  []string
	lastRe   *regexp.Regexp
	replaced bool

	quit     bool
	exitCode int
	status   int // 2 after a missing input file, 4 after an I/O error
}

// sedOut is an output: stdout or an -i temporary file. A line that
// lacked its newline in the input is printed without it, unless more
// output follows.
type sedOut struct {
	w         *bufio.Writer
	missingNL bool
	delim     byte
	failed    bool
}

func (o *sedOut) write(b []byte) {
	if o.missingNL {
		o.w.WriteByte(o.delim)
		o.missingNL = false
	}
	if _, err := o.w.Write(b); err != nil {
		o.failed = true
	}
}

func (o *sedOut) writeString(s string) {
	if o.missingNL {
		o.w.WriteByte(o.delim)
		o.missingNL = false
	}
	if _, err := o.w.WriteString(s); err != nil {
		o.failed = true
	}
}

// line writes a pattern space and its delimiter, which it leaves out
// when the input line had none.
func (o *sedOut) line(b []byte, nl bool) {
	o.write(b)
	if nl {
		o.w.WriteByte(o.delim)
	} else {
		o.missingNL = true
	}
}

// sedInput reads lines from a list of files as one stream, one line
// ahead so that $ is known.
type sedInput struct {
	r      *sedRun
	names  []string
	next   int
	br     *bufio.Reader
	closer io.Closer
	name   string // the file being read ahead

	la     []byte
	laNL   bool
	laOK   bool
	laName string
	acc    []byte
	lineno int64
	name0  string // the file of the current line
}

func newSedInput(r *sedRun, names []string) *sedInput {
	in := &sedInput{r: r, names: names}
	in.fetch()
	return in
}

// fetch reads the line after the current one.
func (in *sedInput) fetch() {
	in.laOK = false
	for {
		if in.br == nil {
			if in.next >= len(in.names) {
				return
			}
			name := in.names[in.next]
			in.next++
			f, err := openInput(in.r.ctx, in.r.c, name)
			if err != nil {
				failf(in.r.c, "can't read %s: %s", name, reason(grepUnwrap(err)))
				in.r.status = max(in.r.status, 2)
				continue
			}
			in.br, in.closer, in.name = bufio.NewReaderSize(f, 64<<10), f, name
		}
		line, err := in.br.ReadSlice(in.r.delim)
		if err == bufio.ErrBufferFull {
			in.acc = append(in.acc[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = in.br.ReadSlice(in.r.delim)
				in.acc = append(in.acc, line...)
			}
			line = in.acc
		}
		if err != nil && err != io.EOF {
			failf(in.r.c, "read error on %s: %s", in.name, reason(grepUnwrap(err)))
			in.r.status = max(in.r.status, 2)
			line = nil
		}
		if len(line) == 0 {
			in.closer.Close()
			in.br = nil
			continue
		}
		in.laNL = err == nil
		if in.laNL {
			line = line[:len(line)-1]
		}
		in.la, in.laOK, in.laName = line, true, in.name
		return
	}
}

// read moves the next line into dst; false at the end of input.
func (in *sedInput) read(dst *[]byte) (nl, ok bool) {
	if !in.laOK {
		return false, false
	}
	*dst = append((*dst)[:0], in.la...)
	nl = in.laNL
	in.name0 = in.laName
	in.lineno++
	in.fetch()
	return nl, true
}

func (in *sedInput) last() bool { return !in.laOK }

func (in *sedInput) close() {
	if in.br != nil {
		in.closer.Close()
		in.br = nil
	}
}

// sedEnd is how a cycle ended.
type sedEnd byte

const (
	sedEndPrint   sedEnd = iota // the end of the script: autoprint
	sedEndDelete                // d, c: no autoprint
	sedEndRestart               // D with a newline: again without reading
	sedEndQuiet                 // Q: stop at once
)

// runInput runs the program over one input until it ends or q stops it.
func (r *sedRun) runInput(in *sedInput) {
	r.in = in
	restart := false
	for !r.quit {
		if !restart {
			nl, ok := in.read(&r.ps)
			if !ok {
				break
			}
			r.psNL = nl
			r.replaced = false
			if in.lineno&4095 == 0 && r.ctx.Err() != nil {
				r.quit, r.status = true, max(r.status, 4)
				break
			}
		}
		restart = false
		switch r.execute() {
		case sedEndPrint:
			if !r.quiet {
				r.out.line(r.ps, r.psNL)
			}
		case sedEndRestart:
			restart = true
		case sedEndQuiet:
			r.quit = true
			in.close()
			return
		}
		r.dumpAppend()
		if r.out.failed {
			r.quit = true
		}
	}
	in.close()
}

func (r *sedRun) dumpAppend() {
	for _, t := range r.appendQ {
		r.out.writeString(t)
	}
	r.appendQ = r.appendQ[:0]
}

// readNext is n and N's read: the append queue goes out first.
func (r *sedRun) readNext(into *[]byte) bool {
	if r.in.last() {
		return false
	}
	r.dumpAppend()
	nl, _ := r.in.read(into)
	r.psNL = nl
	r.replaced = false
	return true
}

func (r *sedRun) execute() sedEnd {
	for pc := 0; pc < len(r.cmds); {
		cmd := r.cmds[pc]
		if !r.selected(cmd) {
			if cmd.name == '{' {
				pc = cmd.target
			} else {
				pc++
			}
			continue
		}
		pc++
		switch cmd.name {
		case '=':
			r.out.writeString(strconv.FormatInt(r.in.lineno, 10) + "\n")
		case 'a':
			r.appendQ = append(r.appendQ, cmd.text)
		case 'i':
			r.out.writeString(cmd.text)
		case 'c':
			if cmd.a2 == nil || !cmd.active {
				r.out.writeString(cmd.text)
			}
			return sedEndDelete
		case 'd':
			return sedEndDelete
		case 'D':
			k := bytes.IndexByte(r.ps, r.delim)
			if k < 0 {
				return sedEndDelete
			}
			r.ps = append(r.ps[:0], r.ps[k+1:]...)
			return sedEndRestart
		case 'g':
			r.ps = append(r.ps[:0], r.hold...)
		case 'G':
			r.ps = append(append(r.ps, r.delim), r.hold...)
		case 'h':
			r.hold = append(r.hold[:0], r.ps...)
		case 'H':
			r.hold = append(append(r.hold, r.delim), r.ps...)
		case 'x':
			r.ps, r.hold = r.hold, r.ps
		case 'n':
			if r.in.last() {
				return sedEndPrint
			}
			if !r.quiet {
				r.out.line(r.ps, r.psNL)
			}
			r.readNext(&r.ps)
		case 'N':
			if r.in.last() {
				return sedEndPrint
			}
			r.scratch = r.scratch[:0]
			r.readNext(&r.scratch)
			r.ps = append(append(r.ps, r.delim), r.scratch...)
		case 'p':
			r.out.line(r.ps, r.psNL)
		case 'P':
			if k := bytes.IndexByte(r.ps, r.delim); k >= 0 {
				r.out.write(r.ps[:k+1])
			} else {
				r.out.write(r.ps)
				r.out.write([]byte{r.delim})
			}
		case 'q':
			r.quit, r.exitCode = true, cmd.code
			return sedEndPrint
		case 'Q':
			r.exitCode = cmd.code
			return sedEndQuiet
		case 's':
			if r.substitute(cmd) {
				r.replaced = true
				if cmd.print {
					r.out.line(r.ps, r.psNL)
				}
			}
		case 't':
			if r.replaced {
				r.replaced = false
				pc = r.jump(cmd)
			}
		case 'T':
			if !r.replaced {
				pc = r.jump(cmd)
			} else {
				r.replaced = false
			}
		case 'b':
			pc = r.jump(cmd)
		case 'y':
			for k, b := range r.ps {
				r.ps[k] = cmd.trans[b]
			}
		case 'z':
			r.ps = r.ps[:0]
		case 'F':
			name := r.in.name0
			r.out.writeString(name + "\n")
		}
	}
	return sedEndPrint
}

func (r *sedRun) jump(cmd *sedCmd) int {
	if cmd.target < 0 {
		return len(r.cmds)
	}
	return cmd.target
}

// selected reports whether cmd's addresses select the current line.
func (r *sedRun) selected(cmd *sedCmd) bool {
	return r.inRange(cmd) != cmd.negate
}

func (r *sedRun) inRange(cmd *sedCmd) bool {
	if cmd.a1 == nil {
		return true
	}
	if cmd.a2 == nil {
		return r.match(cmd.a1)
	}
	l := r.in.lineno
	if cmd.active {
		switch cmd.a2.kind {
		case sedLine, sedPlus, sedMult:
			if l >= cmd.rangeEnd {
				cmd.active = false
			}
			return l <= cmd.rangeEnd
		}
		if r.match(cmd.a2) {
			cmd.active = false
		}
		return true
	}
	if !r.match(cmd.a1) {
		return false
	}
	a2 := cmd.a2
	switch a2.kind {
	case sedLine:
		if a2.n <= l {
			return true
		}
		cmd.rangeEnd = a2.n
	case sedPlus:
		if a2.n == 0 {
			return true
		}
		cmd.rangeEnd = l + a2.n
	case sedMult:
		if a2.n <= 0 || l%a2.n == 0 {
			return true
		}
		cmd.rangeEnd = (l/a2.n + 1) * a2.n
	case sedLast:
		if r.in.last() {
			return true
		}
	}
	cmd.active = true
	return true
}

func (r *sedRun) match(a *sedAddr) bool {
	l := r.in.lineno
	switch a.kind {
	case sedLine:
		return l == a.n
	case sedLast:
		return r.in.last()
	case sedStep:
		if a.step <= 0 {
			return l == a.n
		}
		return l >= a.n && (l-a.n)%a.step == 0
	case sedRegex:
		re := a.re
		if a.emptyRegexp {
			re = r.lastRe
		}
		if re == nil {
			return false
		}
		r.lastRe = re
		return re.Match(r.ps)
	}
	return false
}

// substitute runs an s command on the pattern space.
func (r *sedRun) substitute(cmd *sedCmd) bool {
	re := cmd.re
	if cmd.emptyRe {
		re = r.lastRe
	}
	if re == nil {
		return false
	}
	r.lastRe = re
	n := -1
	if !cmd.global {
		n = cmd.nth
	}
	var matches [][]int
	if cmd.lit != nil && !cmd.emptyRe {
		matches = r.literalMatches(cmd.lit, n)
	} else {
		matches = re.FindAllSubmatchIndex(r.ps, n)
	}
	if len(matches) < cmd.nth {
		return false
	}
	out := r.scratch[:0]
	last := 0
	var conv sedCase
	for k, m := range matches {
		if k+1 < cmd.nth {
			continue
		}
		out = append(out, r.ps[last:m[0]]...)
		out = conv.replace(out, r.ps, m, cmd.repl)
		last = m[1]
		if !cmd.global {
			break
		}
	}
	out = append(out, r.ps[last:]...)
	r.scratch, r.ps = r.ps, out
	return true
}

// literalMatches finds up to n (all when n < 0) occurrences of lit in
// the pattern space, as FindAllSubmatchIndex would.
func (r *sedRun) literalMatches(lit []byte, n int) [][]int {
	r.flat = r.flat[:0]
	for off := 0; n < 0 || len(r.flat) < 2*n; {
		i := bytes.Index(r.ps[off:], lit)
		if i < 0 {
			break
		}
		r.flat = append(r.flat, off+i, off+i+len(lit))
		off += i + len(lit)
	}
	r.locs = r.locs[:0]
	for k := 0; k < len(r.flat); k += 2 {
		r.locs = append(r.locs, r.flat[k:k+2:k+2])
	}
	return r.locs
}

// sedCase is the case conversion state of a replacement: \U or \L on
// until \E, \u or \l for the next character.
type sedCase struct {
	mode, once byte
}

func (c *sedCase) replace(out, src []byte, m []int, parts []sedPart) []byte {
	c.mode, c.once = 0, 0
	for _, p := range parts {
		switch {
		case p.conv == 'U' || p.conv == 'L':
			c.mode, c.once = p.conv, 0
		case p.conv == 'E':
			c.mode, c.once = 0, 0
		case p.conv != 0:
			c.once = p.conv
		case p.group >= 0:
			if 2*p.group+1 < len(m) && m[2*p.group] >= 0 {
				out = c.add(out, src[m[2*p.group]:m[2*p.group+1]])
			}
		default:
			out = c.add(out, []byte(p.lit))
		}
	}
	return out
}

func (c *sedCase) add(out, b []byte) []byte {
	if c.mode == 0 && c.once == 0 {
		return append(out, b...)
	}
	for _, ch := range b {
		switch {
		case c.once == 'u':
			ch = sedUpper(ch)
			c.once = 0
		case c.once == 'l':
			ch = sedLower(ch)
			c.once = 0
		case c.mode == 'U':
			ch = sedUpper(ch)
		case c.mode == 'L':
			ch = sedLower(ch)
		}
		out = append(out, ch)
	}
	return out
}

func sedUpper(b byte) byte {
	if b >= 'a' && b <= 'z' {
		return b - 32
	}
	return b
}

func sedLower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 32
	}
	return b
}

// sedReason is what went wrong with a file, without its name: sed's
// lines name the file themselves.
func sedReason(err error) string {
	return reason(grepUnwrap(err))
}
