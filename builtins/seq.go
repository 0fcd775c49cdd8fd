package builtins

import (
	"bufio"
	"context"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

// cmdSeq is a *command inside a [seqCommand]: seq reads its flags only
// before the first operand and takes a negative number for an operand,
// not a flag, so it splits its words itself.
var cmdSeq = &seqCommand{&command{
	name:     "seq",
	usage:    "[OPTION]... [FIRST [INCREMENT]] LAST",
	about:    "Print numbers from FIRST (default 1) to LAST, in steps of INCREMENT (default 1).",
	operands: "FIRST, INCREMENT and LAST; flags come before them",
	flags: []flag{
		{short: 'f', long: "format", arg: "FORMAT", about: "use printf style floating-point FORMAT (%e, %f, %g and their capitals)"},
		{short: 's', long: "separator", arg: "STRING", about: "use STRING to separate numbers (default: \\n)"},
		{short: 'w', long: "equal-width", about: "equalize width by padding with leading zeroes"},
	},
	run: runSeq,
}}

// A seqCommand is seq's [command] with its own split of the words.
type seqCommand struct{ *command }

// Run parses the flags before the first operand (a word that does not
// start with -, or a negative number, or what follows --) and runs seq.
func (s *seqCommand) Run(ctx context.Context, call *kernel.Call) error {
	flags, operands := seqSplit(call.Args[1:])
	a, help, err := s.parse(flags)
	if err != nil {
		return err
	}
	if help {
		_, err := call.Stdout.Write([]byte(s.help()))
		return err
	}
	a.operands = append(a.operands, operands...)
	return s.run(ctx, call, a)
}

// seqSplit cuts words where the operands start: at the first word that is
// not a flag or a flag's value, or is a negative number, or after "--".
func seqSplit(words []string) (flags, operands []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			return words[:i], words[i+1:]
		case len(w) < 2 || w[0] != '-' || w[1] == '.' || w[1] >= '0' && w[1] <= '9':
			return words[:i], words[i:]
		case strings.HasPrefix(w, "--"):
			name := w[2:]
			if !strings.Contains(name, "=") && (strings.HasPrefix("format", name) || strings.HasPrefix("separator", name)) {
				i++ // the value is the next word
			}
		default:
			// -s VALUE, -wf VALUE: a value letter last takes the next word.
			if j := strings.IndexAny(w[1:], "fs"); j == len(w)-2 && strings.Trim(w[1:j+1], "w") == "" {
				i++
			}
		}
	}
	return words, nil
}

// seqOperand is a number as seq reads it: its value, and the width and
// decimal places it is written with (precision is -1 for a hexadecimal or
// non-finite number).
type seqOperand struct {
	value     float64
	width     int
	precision int
}

func seqScan(arg string) (seqOperand, bool) {
	v, rest, ok := sleepStrtod(arg)
	if !ok || rest != "" {
		return seqOperand{}, false
	}
	s := strings.TrimLeft(arg, " \t\n\v\f\r+")
	op := seqOperand{value: v, width: len(s), precision: -1}
	if strings.ContainsAny(s, "xX") || math.IsInf(v, 0) || math.IsNaN(v) {
		return op, true
	}
	fraction := 0
	dot := strings.IndexByte(s, '.')
	if dot < 0 {
		op.precision = 0
	} else {
		fraction = strings.IndexAny(s[dot+1:], "eE")
		if fraction < 0 {
			fraction = len(s) - dot - 1
		}
		op.precision = fraction
		switch {
		case fraction == 0:
			op.width-- // "5." prints as "5"
		case dot == 0 || s[dot-1] < '0' || s[dot-1] > '9':
			op.width++ // ".5" prints as "0.5"
		}
	}
	e := strings.IndexAny(s, "eE")
	if e < 0 {
		return op, true
	}
	exp, _ := strconv.Atoi(strings.TrimLeft(s[e+1:], "+"))
	op.width -= len(s) - e
	if exp < 0 {
		op.precision -= exp
		if dot < 0 || e == dot+1 {
			op.width++ // the point that now appears
		}
		op.width -= exp
		return op, true
	}
	shift := min(op.precision, exp)
	op.precision -= shift
	if dot >= 0 && fraction > 0 && op.precision == 0 {
		op.width-- // the point is gone
	}
	op.width += exp - min(fraction, exp)
	return op, true
}

func runSeq(ctx context.Context, c *kernel.Call, a *args) error {
	ops := a.operands
	switch {
	case len(ops) == 0:
		return pathnameTry(c, "missing operand")
	case len(ops) > 3:
		return pathnameTry(c, "extra operand '"+ops[3]+"'")
	}
	format, hasFormat := a.value("format", ""), a.has("format")
	equal := a.has("equal-width")
	if hasFormat && equal {
		return pathnameTry(c, "format string may not be specified when printing equal width strings")
	}
	var pf seqPrintf
	if hasFormat {
		var msg string
		if pf, msg = seqParseFormat(format); msg != "" {
			failf(c, "%s", msg)
			return status(1)
		}
	}
	words := []string{"1", "1", ops[len(ops)-1]}
	if len(ops) >= 2 {
		words[0] = ops[0]
	}
	if len(ops) == 3 {
		words[1] = ops[1]
	}
	var nums [3]seqOperand
	for i, w := range words {
		op, ok := seqScan(w)
		if !ok {
			return pathnameTry(c, "invalid floating point argument: '"+w+"'")
		}
		if math.IsNaN(op.value) {
			return pathnameTry(c, "invalid 'not-a-number' argument: '"+w+"'")
		}
		nums[i] = op
	}
	first, step, last := nums[0], nums[1], nums[2]
	if step.value == 0 {
		return pathnameTry(c, "invalid Zero increment value: '"+words[1]+"'")
	}
	sep := a.value("separator", "\n")
	w := newWriter(c.Stdout)
	defer freeWriter(w)
	var err error
	if !hasFormat && !equal && seqDigits(words[0]) && seqDigits(words[1]) && seqDigits(words[2]) {
		err = seqIntegers(ctx, w, words, sep)
	} else {
		if !hasFormat {
			pf = seqDefaultFormat(first, step, last, equal)
		}
		err = seqFloats(ctx, w, pf, first.value, step.value, last.value, sep)
	}
	if ferr := w.Flush(); err == nil && ferr != nil {
		return status(1)
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return status(1)
	}
	return nil
}

func seqDigits(s string) bool { return isDigits(s) }

// seqDefaultFormat is GNU's choice of format: as many decimal places as
// FIRST or INCREMENT has, zero-padded to the widest of FIRST and LAST
// under -w; %g when a number is hexadecimal or not finite.
func seqDefaultFormat(first, step, last seqOperand, equal bool) seqPrintf {
	prec := max(first.precision, step.precision)
	if first.precision < 0 || step.precision < 0 || last.precision < 0 {
		return seqPrintf{verb: 'g', precision: -1}
	}
	pf := seqPrintf{verb: 'f', precision: prec}
	if equal {
		firstWidth := first.width + prec - first.precision
		lastWidth := last.width + prec - last.precision
		if last.precision > 0 && prec == 0 {
			lastWidth--
		}
		if last.precision == 0 && prec > 0 {
			lastWidth++
		}
		if first.precision == 0 && prec > 0 {
			firstWidth++
		}
		pf.zero = true
		pf.width = max(firstWidth, lastWidth)
	}
	return pf
}

// seqIntegers counts in exact integers, as GNU does for operands that are
// all digits.
func seqIntegers(ctx context.Context, w *bufio.Writer, words []string, sep string) error {
	first, err1 := strconv.ParseUint(words[0], 10, 64)
	step, err2 := strconv.ParseUint(words[1], 10, 64)
	last, err3 := strconv.ParseUint(words[2], 10, 64)
	var buf []byte
	if err1 == nil && err2 == nil && err3 == nil && last <= math.MaxUint64-step {
		if first > last {
			return nil
		}
		for n, x := 0, first; ; n, x = n+1, x+step {
			if n&4095 == 4095 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			buf = strconv.AppendUint(buf[:0], x, 10)
			if x+step > last {
				buf = append(buf, '\n')
				_, err := w.Write(buf)
				return err
			}
			buf = append(buf, sep...)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	x, _ := new(big.Int).SetString(words[0], 10)
	inc, _ := new(big.Int).SetString(words[1], 10)
	end, _ := new(big.Int).SetString(words[2], 10)
	if x.Cmp(end) > 0 {
		return nil
	}
	next := new(big.Int)
	for n := 0; ; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		buf = x.Append(buf[:0], 10)
		next.Add(x, inc)
		if next.Cmp(end) > 0 {
			buf = append(buf, '\n')
			_, err := w.Write(buf)
			return err
		}
		buf = append(buf, sep...)
		if _, err := w.Write(buf); err != nil {
			return err
		}
		x, next = next, x
	}
}

// seqFloats is GNU's loop: the i'th number is first + i*step, and one
// just past LAST is printed still when it prints as LAST does (rounding),
// unless it prints as the one before.
func seqFloats(ctx context.Context, w *bufio.Writer, pf seqPrintf, first, step, last float64, sep string) error {
	if step < 0 && first < last || step > 0 && last < first {
		return nil
	}
	var buf, prev []byte
	x := first
	past := false
	for i := 1.0; ; i++ {
		if int(i)&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		buf = pf.append(buf[:0], x)
		if _, err := w.Write(buf); err != nil {
			return err
		}
		if past {
			break
		}
		x0 := x
		x = first + i*step
		if past = step < 0 && x < last || step > 0 && last < x; past {
			num := pf.number(nil, x)
			v, err := strconv.ParseFloat(strings.TrimSpace(string(num)), 64)
			if err != nil || v != last {
				break
			}
			prev = pf.number(prev[:0], x0)
			if string(prev) == string(num) {
				break
			}
		}
		if _, err := w.WriteString(sep); err != nil {
			return err
		}
	}
	_, err := w.WriteString("\n")
	return err
}

// seqPrintf is one printf floating-point conversion with the literal text
// around it, as C's printf writes it.
type seqPrintf struct {
	prefix, suffix          string
	minus, plus, space, alt bool
	zero                    bool
	width                   int
	precision               int // -1: the default, 6
	verb                    byte
}

// seqParseFormat reads a -f FORMAT as GNU seq does: exactly one %
// directive, of e, f or g (either case), with flags, width, precision and
// an optional L; %% elsewhere is a literal %. msg is GNU's complaint.
func seqParseFormat(f string) (pf seqPrintf, msg string) {
	i := 0
	for ; !(i < len(f) && f[i] == '%' && (i+1 >= len(f) || f[i+1] != '%')); i++ {
		if i >= len(f) {
			return pf, "format '" + f + "' has no % directive"
		}
		if f[i] == '%' {
			i++
		}
	}
	pf.prefix = strings.ReplaceAll(f[:i], "%%", "%")
	i++
	for ; i < len(f) && strings.IndexByte("-+#0 '", f[i]) >= 0; i++ {
		switch f[i] {
		case '-':
			pf.minus = true
		case '+':
			pf.plus = true
		case ' ':
			pf.space = true
		case '#':
			pf.alt = true
		case '0':
			pf.zero = true
		}
	}
	start := i
	for i < len(f) && f[i] >= '0' && f[i] <= '9' {
		i++
	}
	pf.width, _ = strconv.Atoi(f[start:i])
	pf.precision = -1
	if i < len(f) && f[i] == '.' {
		i++
		start = i
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		pf.precision, _ = strconv.Atoi(f[start:i])
	}
	if i < len(f) && f[i] == 'L' {
		i++
	}
	if i >= len(f) {
		return pf, "format '" + f + "' ends in %"
	}
	switch f[i] {
	case 'e', 'f', 'g', 'E', 'F', 'G':
		pf.verb = f[i]
	case 'a', 'A':
		return pf, "format '" + f + "': the %" + string(f[i]) + " directive is not supported; allowed: %e, %f, %g, %E, %F, %G"
	default:
		return pf, "format '" + f + "' has unknown %" + string(f[i]) + " directive"
	}
	rest := f[i+1:]
	for j := 0; j < len(rest); j++ {
		if rest[j] == '%' {
			if j+1 < len(rest) && rest[j+1] == '%' {
				j++
				continue
			}
			return pf, "format '" + f + "' has too many % directives"
		}
	}
	pf.suffix = strings.ReplaceAll(rest, "%%", "%")
	return pf, ""
}

func (pf seqPrintf) append(b []byte, x float64) []byte {
	b = append(b, pf.prefix...)
	b = pf.number(b, x)
	return append(b, pf.suffix...)
}

// number is the conversion alone, padded to its width.
func (pf seqPrintf) number(b []byte, x float64) []byte {
	var sign string
	switch {
	case math.Signbit(x):
		sign = "-"
		x = -x
	case pf.plus:
		sign = "+"
	case pf.space:
		sign = " "
	}
	upper := pf.verb == 'E' || pf.verb == 'F' || pf.verb == 'G'
	var digits []byte
	zero := pf.zero && !pf.minus
	switch {
	case math.IsInf(x, 0):
		digits, zero = []byte("inf"), false
	case math.IsNaN(x):
		digits, zero = []byte("nan"), false
	default:
		digits = seqConvert(nil, x, pf.verb|0x20, pf.precision, pf.alt)
	}
	if upper {
		digits = []byte(strings.ToUpper(string(digits)))
	}
	pad := pf.width - len(sign) - len(digits)
	switch {
	case pad <= 0:
		b = append(b, sign...)
		b = append(b, digits...)
	case pf.minus:
		b = append(b, sign...)
		b = append(b, digits...)
		b = append(b, strings.Repeat(" ", pad)...)
	case zero:
		b = append(b, sign...)
		b = append(b, strings.Repeat("0", pad)...)
		b = append(b, digits...)
	default:
		b = append(b, strings.Repeat(" ", pad)...)
		b = append(b, sign...)
		b = append(b, digits...)
	}
	return b
}

// seqConvert writes a finite, non-negative x as C's %e, %f or %g do.
func seqConvert(b []byte, x float64, verb byte, prec int, alt bool) []byte {
	if prec < 0 {
		prec = 6
	}
	switch verb {
	case 'f':
		b = strconv.AppendFloat(b, x, 'f', prec, 64)
		if alt && prec == 0 {
			b = append(b, '.')
		}
		return b
	case 'e':
		b = strconv.AppendFloat(b, x, 'e', prec, 64)
		if alt && prec == 0 {
			i := strings.IndexByte(string(b), 'e')
			b = append(b[:i], append([]byte{'.'}, b[i:]...)...)
		}
		return b
	}
	if prec == 0 {
		prec = 1
	}
	e := strconv.AppendFloat(nil, x, 'e', prec-1, 64)
	exp, _ := strconv.Atoi(string(e[strings.IndexByte(string(e), 'e')+1:]))
	var out []byte
	if exp < prec && exp >= -4 {
		out = strconv.AppendFloat(nil, x, 'f', prec-1-exp, 64)
		if !alt {
			out = seqTrimZeros(out)
		} else if !strings.Contains(string(out), ".") {
			out = append(out, '.')
		}
	} else {
		out = e
		if !alt {
			i := strings.IndexByte(string(out), 'e')
			mant := seqTrimZeros(append([]byte(nil), out[:i]...))
			out = append(mant, out[i:]...)
		} else if !strings.Contains(string(out), ".") {
			i := strings.IndexByte(string(out), 'e')
			out = append(out[:i], append([]byte{'.'}, out[i:]...)...)
		}
	}
	return append(b, out...)
}

// seqTrimZeros drops the trailing zeros of a fraction, and its point when
// nothing is left after it.
func seqTrimZeros(b []byte) []byte {
	if !strings.Contains(string(b), ".") {
		return b
	}
	for len(b) > 0 && b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return b
}
