package bashfmt

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// printf's numbers as C's printf writes them: %d %i %o %u %x %X, and
// %f %e %g %a and their capitals at long double precision.

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
