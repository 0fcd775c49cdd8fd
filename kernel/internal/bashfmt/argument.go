package bashfmt

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// printf's arguments read as numbers, as bash reads them: strtoimax and
// strtold, with their warnings.

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
