package builtins

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jqCompact is v as one line of JSON.
func jqCompact(v any) string {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	e := jqEncoder{w: w}
	e.encode(v, 0)
	w.Flush()
	return b.String()
}

// jqEncoder prints values as jq 1.6 does: keys sorted (gojq's objects
// keep no order), numbers as IEEE doubles in jq's format.
type jqEncoder struct {
	w      *bufio.Writer
	indent string // "" for one line
	ascii  bool
	num    []byte
}

func (e *jqEncoder) newline(depth int) {
	e.w.WriteByte('\n')
	for range depth {
		e.w.WriteString(e.indent)
	}
}

func (e *jqEncoder) encode(v any, depth int) {
	switch v := v.(type) {
	case nil:
		e.w.WriteString("null")
	case bool:
		if v {
			e.w.WriteString("true")
		} else {
			e.w.WriteString("false")
		}
	case int:
		e.number(float64(v))
	case float64:
		e.number(v)
	case *big.Int:
		f, _ := new(big.Float).SetInt(v).Float64()
		e.number(f)
	case string:
		e.str(v)
	case []any:
		if len(v) == 0 {
			e.w.WriteString("[]")
			return
		}
		e.w.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				e.w.WriteByte(',')
			}
			if e.indent != "" {
				e.newline(depth + 1)
			}
			e.encode(x, depth+1)
		}
		if e.indent != "" {
			e.newline(depth)
		}
		e.w.WriteByte(']')
	case map[string]any:
		if len(v) == 0 {
			e.w.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		e.w.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.w.WriteByte(',')
			}
			if e.indent != "" {
				e.newline(depth + 1)
			}
			e.str(k)
			e.w.WriteByte(':')
			if e.indent != "" {
				e.w.WriteByte(' ')
			}
			e.encode(v[k], depth+1)
		}
		if e.indent != "" {
			e.newline(depth)
		}
		e.w.WriteByte('}')
	default:
		// gojq yields only the types above; anything else is printed as
		// its text rather than lost.
		e.str(fmt.Sprint(v))
	}
}

func (e *jqEncoder) number(f float64) {
	e.num = jqFormatNumber(e.num[:0], f)
	e.w.Write(e.num)
}

// jqFormatNumber appends f as jq 1.6 prints a number: the shortest digits
// that read back as f, in exponent form when the decimal point would be
// more than 15 places past them or 4 before; NaN as null, the
// infinities as the largest doubles.
func jqFormatNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "null"...)
	case math.IsInf(f, 1):
		f = math.MaxFloat64
	case math.IsInf(f, -1):
		f = -math.MaxFloat64
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0"...)
		}
		return append(b, '0')
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	if s[0] == '-' {
		b = append(b, '-')
		s = s[1:]
	}
	mant, exp, _ := bytes.Cut(s, []byte("e"))
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	x, _ := strconv.Atoi(string(exp))
	decpt := x + 1
	n := len(digits)
	switch {
	case decpt <= -4 || decpt > n+15:
		b = append(b, digits[0])
		if n > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if x < 0 {
			b = append(b, '-')
			x = -x
		} else {
			b = append(b, '+')
		}
		if x < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(x), 10)
	case decpt <= 0:
		b = append(b, "0."...)
		for range -decpt {
			b = append(b, '0')
		}
		return append(b, digits...)
	case decpt >= n:
		b = append(b, digits...)
		for range decpt - n {
			b = append(b, '0')
		}
		return b
	}
	b = append(b, digits[:decpt]...)
	b = append(b, '.')
	return append(b, digits[decpt:]...)
}

func (e *jqEncoder) str(s string) {
	const hex = "0123456789abcdef"
	w := e.w
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x7f {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			w.WriteString(s[start:i])
			switch c {
			case '"':
				w.WriteString(`\"`)
			case '\\':
				w.WriteString(`\\`)
			case '\b':
				w.WriteString(`\b`)
			case '\f':
				w.WriteString(`\f`)
			case '\n':
				w.WriteString(`\n`)
			case '\r':
				w.WriteString(`\r`)
			case '\t':
				w.WriteString(`\t`)
			default:
				w.WriteString(`\u00`)
				w.WriteByte(hex[c>>4])
				w.WriteByte(hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			w.WriteString(s[start:i])
			if e.ascii {
				w.WriteString(`\ufffd`)
			} else {
				w.WriteString("\uFFFD")
			}
			i++
			start = i
			continue
		}
		if e.ascii {
			w.WriteString(s[start:i])
			units := []rune{r}
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				units = []rune{r1, r2}
			}
			for _, u := range units {
				w.WriteString(`\u`)
				w.WriteByte(hex[u>>12&0xf])
				w.WriteByte(hex[u>>8&0xf])
				w.WriteByte(hex[u>>4&0xf])
				w.WriteByte(hex[u&0xf])
			}
			start = i + n
		}
		i += n
	}
	w.WriteString(s[start:])
	w.WriteByte('"')
}
