package bashfmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// printfRun is one printf: the format applied to the arguments as bash
// does, reusing the format while arguments remain. Output and diagnostics
// are collected, so that each is written once.
type printfRun struct {
	args     []string
	consumed bool // the current pass of the format took an argument
	out      strings.Builder
	errs     strings.Builder
	status   int
	stopped  bool // \c or a bad format: nothing more is printed

	now   time.Time      // what -1 means to %(...)T
	start time.Time      // what -2 means
	loc   *time.Location // the zone of %(...)T
}

// processStart stands for the shell's start in %(...)T with -2.
var processStart = time.Now()

// Printf applies format to args as bash's printf does: the format is
// used again while arguments remain, missing arguments are empty, a bad
// number or format is reported in errs (each line starting "printf: ")
// with status 1. %(...)T formats a time in loc, the local zone when loc
// is nil.
func Printf(format string, args []string, loc *time.Location) (out, errs string, status int) {
	if loc == nil {
		loc = time.Local
	}
	p := &printfRun{args: args, now: time.Now(), start: processStart, loc: loc}
	for {
		p.consumed = false
		p.pass(format)
		if p.stopped || len(p.args) == 0 || !p.consumed {
			break
		}
	}
	return p.out.String(), p.errs.String(), p.status
}

func (p *printfRun) errorf(format string, a ...any) {
	fmt.Fprintf(&p.errs, "printf: "+format+"\n", a...)
	p.status = 1
}

// next takes the next argument; missing ones are empty.
func (p *printfRun) next() (string, bool) {
	p.consumed = true
	if len(p.args) == 0 {
		return "", false
	}
	a := p.args[0]
	p.args = p.args[1:]
	return a, true
}

// spec is one conversion: %[flags][width][.precision][length]conv.
type spec struct {
	minus, plus, space, alt, zero bool
	width, prec                   int // -1: not given
	conv                          byte
	timeFormat                    string // of %(...)T
}

func (p *printfRun) pass(format string) {
	for i := 0; i < len(format) && !p.stopped; {
		switch c := format[i]; c {
		case '\\':
			text, n, _ := oneEscape(format[i:], escapeFormat)
			p.out.WriteString(text)
			i += n
		case '%':
			n := p.conversion(format[i:])
			i += n
		default:
			j := strings.IndexAny(format[i:], `\%`)
			if j < 0 {
				j = len(format) - i
			}
			p.out.WriteString(format[i : i+j])
			i += j
		}
	}
}

// conversion formats the conversion f begins with and returns its length.
func (p *printfRun) conversion(f string) int {
	if strings.HasPrefix(f, "%%") {
		p.out.WriteByte('%')
		return 2
	}
	sp := spec{width: -1, prec: -1}
	i := 1
flags:
	for ; i < len(f); i++ {
		switch f[i] {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.alt = true
		case '0':
			sp.zero = true
		case '\'':
		default:
			break flags
		}
	}
	number := func() int {
		if i < len(f) && f[i] == '*' {
			i++
			a, _ := p.next()
			n, _ := p.integer(a)
			return int(max(min(n, math.MaxInt32), math.MinInt32))
		}
		j := i
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		n, _ := strconv.Atoi(f[j:i])
		return n
	}
	if i < len(f) && (f[i] == '*' || f[i] >= '1' && f[i] <= '9') {
		sp.width = number()
		if sp.width < 0 {
			sp.minus, sp.width = true, -sp.width
		}
	}
	if i < len(f) && f[i] == '.' {
		i++
		sp.prec = max(number(), -1)
		if sp.prec < 0 {
			sp.prec = -1
		}
	}
	for i < len(f) && strings.IndexByte("hlLjzt", f[i]) >= 0 {
		i++
	}
	if i < len(f) && f[i] == '(' {
		end := strings.IndexByte(f[i:], ')')
		if end < 0 || i+end+1 >= len(f) || f[i+end+1] != 'T' {
			p.errorf("`%s': invalid time format specification", f[:min(len(f), i+1)])
			p.stopped = true
			return len(f)
		}
		sp.timeFormat, sp.conv = f[i+1:i+end], 'T'
		i += end + 2
		p.format(sp)
		return i
	}
	if i >= len(f) {
		p.errorf("`%%': missing format character")
		p.stopped = true
		return i
	}
	sp.conv = f[i]
	if strings.IndexByte("diouxXfFeEgGaAcsbq", sp.conv) < 0 {
		p.errorf("`%c': invalid format character", sp.conv)
		p.stopped = true
		return i + 1
	}
	p.format(sp)
	return i + 1
}

func (p *printfRun) format(sp spec) {
	arg, _ := p.next()
	switch sp.conv {
	case 's':
		p.out.WriteString(pad(precise(arg, sp.prec), sp))
	case 'q':
		p.out.WriteString(pad(precise(quote(arg), sp.prec), sp))
	case 'b':
		text, stop := expandEscapes(arg, escapeArg)
		p.out.WriteString(pad(precise(text, sp.prec), sp))
		if stop {
			p.stopped = true
		}
	case 'c':
		c := "\x00"
		if arg != "" {
			c = arg[:1]
		}
		p.out.WriteString(pad(c, sp))
	case 'd', 'i':
		n, _ := p.integer(arg)
		p.out.WriteString(formatInt(n < 0, uint64(n), sp))
	case 'o', 'u', 'x', 'X':
		n, _ := p.integer(arg)
		p.out.WriteString(formatInt(false, uint64(n), sp))
	case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
		p.out.WriteString(formatFloat(p.float(arg), sp))
	case 'T':
		p.out.WriteString(pad(p.timeText(arg, sp.timeFormat), sp))
	}
}

func (p *printfRun) timeText(arg, layout string) string {
	n := int64(-1)
	if arg != "" {
		n, _ = p.integer(arg)
	}
	var t time.Time
	switch n {
	case -1:
		t = p.now
	case -2:
		t = p.start
	default:
		t = time.Unix(n, 0)
	}
	if layout == "" {
		layout = "%X"
	}
	return strftime(layout, t.In(p.loc))
}

// precise cuts s to prec bytes, as C's printf does.
func precise(s string, prec int) string {
	if prec >= 0 && prec < len(s) {
		return s[:prec]
	}
	return s
}

// pad fills s to the width with spaces, on the left unless -.
func pad(s string, sp spec) string {
	if len(s) >= sp.width {
		return s
	}
	fill := strings.Repeat(" ", sp.width-len(s))
	if sp.minus {
		return s + fill
	}
	return fill + s
}
