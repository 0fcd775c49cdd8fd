package shast

import "strings"

// DecodeANSIC is the value bash gives the text s of a $'…' string: its
// backslash escapes decoded (\a \b \e \E \f \n \r \t \v \\ \' \" \?, \NNN
// octal, \xHH and \x{H…} hexadecimal, which keep their low byte, \uHHHH
// and \UHHHHHHHH as UTF-8, \cX the control character), an unknown escape
// kept with its backslash, and the value cut at a NUL, which no shell
// string holds.
func DecodeANSIC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		esc := s[i+1]
		i += 2
		switch esc {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(esc)
		case 'c':
			if i == len(s) {
				b.WriteString(`\c`)
				break
			}
			x := s[i]
			i++
			if x == '\\' && i < len(s) && s[i] == '\\' {
				i++
			}
			if x == '?' {
				b.WriteByte(0x7f)
			} else {
				b.WriteByte(upper(x) & 0x1f)
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n := uint32(esc - '0')
			for k := 0; k < 2 && i < len(s) && s[i] >= '0' && s[i] <= '7'; k++ {
				n = n<<3 | uint32(s[i]-'0')
				i++
			}
			b.WriteByte(byte(n))
		case 'x':
			if i < len(s) && s[i] == '{' {
				n, used := hexDigits(s[i+1:], len(s))
				i += 1 + used
				if i < len(s) && s[i] == '}' {
					i++
				}
				b.WriteByte(byte(n))
				break
			}
			n, used := hexDigits(s[i:], 2)
			if used == 0 {
				b.WriteString(`\x`)
				break
			}
			i += used
			b.WriteByte(byte(n))
		case 'u', 'U':
			max := 4
			if esc == 'U' {
				max = 8
			}
			n, used := hexDigits(s[i:], max)
			if used == 0 {
				b.WriteByte('\\')
				b.WriteByte(esc)
				break
			}
			i += used
			b.WriteRune(rune(n))
		default:
			b.WriteByte('\\')
			b.WriteByte(esc)
		}
	}
	out := b.String()
	if j := strings.IndexByte(out, 0); j >= 0 {
		out = out[:j]
	}
	return out
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// hexDigits reads up to max hexadecimal digits at the start of s.
func hexDigits(s string, max int) (n uint32, used int) {
	for used < max && used < len(s) {
		c := s[used]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return n, used
		}
		n = n<<4 | uint32(d)
		used++
	}
	return n, used
}
