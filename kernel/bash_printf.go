package kernel

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"mvdan.cc/sh/v3/interp"
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

// formatPrintf applies format to args as bash's printf does.
func formatPrintf(format string, args []string, loc *time.Location) (out, errs string, status int) {
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
		p.out.WriteString(pad(precise(bashQuote(arg), sp.prec), sp))
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

// padNumber fills a number to the width: zeros between sign and digits
// with the 0 flag, spaces otherwise.
func padNumber(sign, digits string, sp spec, zeros bool) string {
	if n := sp.width - len(sign) - len(digits); n > 0 && zeros && sp.zero && !sp.minus {
		return sign + strings.Repeat("0", n) + digits
	}
	return pad(sign+digits, sp)
}

func formatInt(neg bool, mag uint64, sp spec) string {
	base := map[byte]int{'d': 10, 'i': 10, 'u': 10, 'o': 8, 'x': 16, 'X': 16}[sp.conv]
	if neg {
		mag = -mag
	}
	digits := strconv.FormatUint(mag, base)
	if sp.conv == 'X' {
		digits = strings.ToUpper(digits)
	}
	if sp.prec == 0 && mag == 0 {
		digits = ""
	}
	if len(digits) < sp.prec {
		digits = strings.Repeat("0", sp.prec-len(digits)) + digits
	}
	sign := ""
	switch {
	case sp.conv == 'o' && sp.alt && !strings.HasPrefix(digits, "0"):
		digits = "0" + digits
	case sp.conv == 'x' && sp.alt && mag != 0:
		sign = "0x"
	case sp.conv == 'X' && sp.alt && mag != 0:
		sign = "0X"
	case neg:
		sign = "-"
	case (sp.conv == 'd' || sp.conv == 'i') && sp.plus:
		sign = "+"
	case (sp.conv == 'd' || sp.conv == 'i') && sp.space:
		sign = " "
	}
	return padNumber(sign, digits, sp, sp.prec < 0)
}

// longDouble is the precision of bash's floating point: x87's 64-bit
// mantissa.
const longDouble = 64

func formatFloat(x *big.Float, sp spec) string {
	upper := sp.conv == 'F' || sp.conv == 'E' || sp.conv == 'G' || sp.conv == 'A'
	if x == nil {
		text := "nan"
		if upper {
			text = "NAN"
		}
		return pad(text, sp)
	}
	sign := ""
	switch {
	case x.Signbit():
		sign = "-"
	case sp.plus:
		sign = "+"
	case sp.space:
		sign = " "
	}
	abs := new(big.Float).Abs(x)
	if abs.IsInf() {
		text := "inf"
		if upper {
			text = "INF"
		}
		return pad(sign+text, sp)
	}
	prec := sp.prec
	if prec < 0 {
		prec = 6
	}
	var digits string
	switch sp.conv {
	case 'f', 'F':
		digits = abs.Text('f', prec)
		if sp.alt && prec == 0 {
			digits += "."
		}
	case 'e', 'E':
		digits = cExponent(abs.Text('e', prec))
		if sp.alt && prec == 0 {
			digits = strings.Replace(digits, "e", ".e", 1)
		}
	case 'g', 'G':
		digits = formatG(abs, max(prec, 1), sp.alt)
	case 'a', 'A':
		digits = formatHexFloat(abs, sp.prec, sp.alt)
	}
	if upper {
		digits = strings.ToUpper(digits)
	}
	return padNumber(sign, digits, sp, true)
}

// formatHexFloat is glibc's %La for x87's long double: the leading hex
// digit holds the mantissa's top four bits (8 to f).
func formatHexFloat(abs *big.Float, prec int, alt bool) string {
	if abs.Sign() == 0 {
		digits := "0x0"
		if prec > 0 {
			digits += "." + strings.Repeat("0", prec)
		} else if alt {
			digits += "."
		}
		return digits + "p+0"
	}
	mant := new(big.Float).SetPrec(longDouble)
	exp := abs.MantExp(mant)
	m, _ := mant.SetMantExp(mant, longDouble).Uint64()
	exp -= 4
	frac := fmt.Sprintf("%015x", m&(1<<60-1))
	lead := m >> 60
	if prec >= 0 && prec < 15 {
		// Round the dropped digits to nearest, ties to even.
		keep := uint(4 * (15 - prec))
		rest := m & (1<<keep - 1)
		m >>= keep
		half := uint64(1) << (keep - 1)
		if rest > half || rest == half && m&1 == 1 {
			m++
		}
		lead = m >> (4 * uint(prec))
		if lead >= 16 {
			lead >>= 1 // 0xf.f… rounded up to 0x10: 0x8 with one more exponent
			m >>= 1
			exp += 1
		}
		frac = ""
		if prec > 0 {
			frac = fmt.Sprintf("%0*x", prec, m&(1<<(4*uint(prec))-1))
		}
	} else {
		frac = strings.TrimRight(frac, "0")
		if prec > 15 {
			frac += strings.Repeat("0", prec-len(frac))
		}
	}
	digits := fmt.Sprintf("0x%x", lead)
	if frac != "" || alt {
		digits += "." + frac
	}
	return fmt.Sprintf("%sp%+d", digits, exp)
}

// cExponent writes a big.Float exponent as C does: a sign and at least
// two digits.
func cExponent(s string) string {
	i := strings.LastIndexAny(s, "ep")
	if i < 0 {
		return s
	}
	mant, exp := s[:i], s[i+1:]
	sign := "+"
	if exp[0] == '-' || exp[0] == '+' {
		sign, exp = exp[:1], exp[1:]
	}
	if len(exp) < 2 {
		exp = "0" + exp
	}
	return mant + "e" + sign + exp
}

// formatG is C's %g: %e when the exponent is below -4 or at least the
// precision, %f otherwise; trailing zeros go unless alt.
func formatG(abs *big.Float, prec int, alt bool) string {
	e := cExponent(abs.Text('e', prec-1))
	exp, _ := strconv.Atoi(e[strings.LastIndexByte(e, 'e')+1:])
	var s string
	if exp < -4 || exp >= prec {
		s = e
	} else {
		s = abs.Text('f', prec-1-exp)
	}
	if alt {
		if !strings.Contains(s, ".") {
			if i := strings.IndexByte(s, 'e'); i >= 0 {
				s = s[:i] + "." + s[i:]
			} else {
				s += "."
			}
		}
		return s
	}
	mant, exppart := s, ""
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exppart = s[:i], s[i:]
	}
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	return mant + exppart
}

// integer reads a printf argument as bash does (strtoimax in base 0, or
// 'c for a character's code); a bad one is reported and gives what could
// be read.
func (p *printfRun) integer(arg string) (int64, bool) {
	n, ok, overflow := parseBashInt(arg)
	switch {
	case overflow:
		fmt.Fprintf(&p.errs, "printf: warning: %s: Numerical result out of range\n", arg)
	case !ok:
		p.errorf("%s: %s", arg, badNumber(arg))
	}
	return n, ok
}

func parseBashInt(arg string) (n int64, ok, overflow bool) {
	if arg == "" {
		return 0, true, false
	}
	if arg[0] == '\'' || arg[0] == '"' {
		return int64(charCode(arg[1:])), true, false
	}
	s := strings.TrimLeft(arg, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base := 10
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") && hexDigit(s[2]) >= 0:
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base = 8
	}
	end := 0
	for end < len(s) {
		d := hexDigit(s[end])
		if d < 0 || d >= base {
			break
		}
		end++
	}
	if end == 0 {
		return 0, false, false
	}
	u, err := strconv.ParseUint(s[:end], base, 64)
	switch {
	case err != nil || !neg && u > math.MaxInt64:
		overflow, n = true, math.MaxInt64
		if neg {
			n = math.MinInt64
		}
	case neg && u > 1<<63:
		overflow, n = true, math.MinInt64
	case neg:
		n = -int64(u)
	default:
		n = int64(u)
	}
	return n, end == len(s), overflow
}

// badNumber is bash's word for an argument that is not a whole number.
func badNumber(arg string) string {
	s := strings.TrimLeft(arg, " \t\n\v\f\r+-")
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		if len(s) == 2 || hexDigit(s[2]) < 0 {
			return "invalid hex number"
		}
	case len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9':
		if strings.Trim(s, "01234567") != "" && strings.ContainsAny(s, "89") && strings.Trim(s, "0123456789") == "" {
			return "invalid octal number"
		}
	}
	return "invalid number"
}

// charCode is the code of the character s begins with: its code point when
// it is UTF-8, else its byte.
func charCode(s string) int {
	if s == "" {
		return 0
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size <= 1 {
		return int(s[0])
	}
	return int(r)
}

// float reads a printf argument as bash does (strtold), at long double
// precision.
func (p *printfRun) float(arg string) *big.Float {
	x, ok := parseBashFloat(arg)
	if !ok {
		p.errorf("%s: invalid number", arg)
	}
	return x
}

func parseBashFloat(arg string) (*big.Float, bool) {
	z := new(big.Float).SetPrec(longDouble).SetMode(big.ToNearestEven)
	if arg == "" {
		return z, true
	}
	if arg[0] == '\'' || arg[0] == '"' {
		return z.SetInt64(int64(charCode(arg[1:]))), true
	}
	s := strings.TrimLeft(arg, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	lower := strings.ToLower(s)
	var end int
	switch {
	case strings.HasPrefix(lower, "infinity"):
		z.SetInf(neg)
		return z, len(s) == len("infinity")
	case strings.HasPrefix(lower, "inf"):
		z.SetInf(neg)
		return z, len(s) == 3
	case strings.HasPrefix(lower, "nan"):
		// big.Float has no NaN: a nil value stands for it.
		return nil, len(s) == 3
	case strings.HasPrefix(lower, "0x") && len(s) > 2 && (hexDigit(s[2]) >= 0 || len(s) > 3 && s[2] == '.' && hexDigit(s[3]) >= 0):
		end = 2 + scanMantissa(s[2:], 16)
		mantEnd := end
		if end < len(s) && (s[end] == 'p' || s[end] == 'P') {
			end += scanExponent(s[end:])
		}
		text := s[:end]
		if mantEnd == end {
			text += "p0"
		}
		if _, _, err := z.Parse(text, 0); err != nil {
			return z, false
		}
	default:
		end = scanMantissa(s, 10)
		if end == 0 {
			return z, false
		}
		if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
			end += scanExponent(s[end:])
		}
		if _, _, err := z.Parse(s[:end], 10); err != nil {
			return z, false
		}
	}
	if neg {
		z.Neg(z)
	}
	return z, end == len(s)
}

// scanMantissa is the length of the digits[.digits] s begins with.
func scanMantissa(s string, base int) int {
	i, digits := 0, 0
	for i < len(s) && hexDigit(s[i]) >= 0 && hexDigit(s[i]) < base {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && hexDigit(s[j]) >= 0 && hexDigit(s[j]) < base {
			j++
			digits++
		}
		if digits > 0 {
			i = j
		}
	}
	if digits == 0 {
		return 0
	}
	return i
}

// scanExponent is the length of the exponent s begins with (e+12), 0 when
// what follows the letter is not one.
func scanExponent(s string) int {
	i := 1
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0
	}
	return j
}

const printfUsage = "printf: usage: printf [-v var] format [arguments]"

// printfCall answers printf: it formats, then assigns (-v) or writes.
func (s *Session) printfCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], "", "v")
	if fa.bad != "" || fa.needed != "" {
		return refuse(hc, flagRefusal("printf", fa, "", "v"))
	}
	if len(fa.rest) == 0 {
		fmt.Fprintln(hc.Stderr, printfUsage)
		return statusArgv(2)
	}
	if len(fa.flags) == 0 {
		out, errs, status := formatPrintf(fa.rest[0], fa.rest[1:], zoneOf(hc))
		io.WriteString(hc.Stderr, errs)
		return s.wrote(ctx, hc, "printf", out, status)
	}
	target := fa.flags[len(fa.flags)-1].value
	if !validTarget(target, true) {
		fmt.Fprintf(hc.Stderr, "printf: `%s': not a valid identifier\n", target)
		return statusArgv(2)
	}
	out, errs, status := formatPrintf(fa.rest[0], fa.rest[1:], zoneOf(hc))
	io.WriteString(hc.Stderr, errs)
	return assignArgv(hc, []string{assignScalar(target, out)}, status)
}

// zoneOf is the time zone the command's TZ names, the process's otherwise.
func zoneOf(hc interp.HandlerContext) *time.Location {
	tz := hc.Env.Get("TZ")
	if !tz.IsSet() {
		return time.Local
	}
	name := strings.TrimPrefix(tz.String(), ":")
	if name == "" || name == "UTC0" {
		return time.UTC
	}
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	return time.UTC
}
