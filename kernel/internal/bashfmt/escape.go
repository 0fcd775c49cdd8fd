package bashfmt

import "strings"

// escapeMode says which backslash escapes a string takes: the three users
// of bash's escapes differ in the octal form and in \' \" \?.
type escapeMode int

const (
	// escapeEcho is echo -e: octal is \0NNN only.
	escapeEcho escapeMode = iota
	// escapeArg is printf's %b: octal is \0NNN or \NNN.
	escapeArg
	// escapeFormat is printf's format: octal is \NNN, and \' \" \? lose
	// their backslash.
	escapeFormat
)

// expandEscapes expands bash's backslash escapes in s. stop reports a \c,
// which ends the output there (echo -e and %b only; a format keeps it).
func expandEscapes(s string, mode escapeMode) (out string, stop bool) {
	if !strings.Contains(s, `\`) {
		return s, false
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		text, n, stop := oneEscape(s[i:], mode)
		if stop {
			return b.String(), true
		}
		b.WriteString(text)
		i += n
	}
	return b.String(), false
}

// oneEscape expands the escape s begins with (s[0] is a backslash): what
// it stands for and how many bytes of s it took.
func oneEscape(s string, mode escapeMode) (text string, n int, stop bool) {
	if len(s) < 2 {
		return s, len(s), false
	}
	c := s[1]
	switch c {
	case 'a':
		return "\a", 2, false
	case 'b':
		return "\b", 2, false
	case 'e', 'E':
		return "\x1b", 2, false
	case 'f':
		return "\f", 2, false
	case 'n':
		return "\n", 2, false
	case 'r':
		return "\r", 2, false
	case 't':
		return "\t", 2, false
	case 'v':
		return "\v", 2, false
	case '\\':
		return "\\", 2, false
	case '\'', '"', '?':
		if mode == escapeFormat {
			return s[1:2], 2, false
		}
		return s[:2], 2, false
	case 'c':
		if mode == escapeFormat {
			return s[:2], 2, false
		}
		return "", 2, true
	case 'x', 'u', 'U':
		maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		v, used := hexPrefix(s[2:], maxDigits)
		switch {
		case used == 0:
			return s[:2], 2, false
		case c == 'x':
			return string([]byte{byte(v)}), 2 + used, false
		}
		return string(encodeRuneRaw(v)), 2 + used, false
	case '0', '1', '2', '3', '4', '5', '6', '7':
		start := 1
		switch {
		case c == '0' && mode != escapeFormat:
			start = 2
		case mode == escapeEcho:
			return s[:2], 2, false
		}
		v, used := octalPrefix(s[start:], 3)
		return string([]byte{byte(v)}), start + used, false
	}
	return s[:2], 2, false
}

func hexPrefix(s string, maxDigits int) (n uint32, used int) {
	for used < maxDigits && used < len(s) {
		d := hexDigit(s[used])
		if d < 0 {
			break
		}
		n = n<<4 | uint32(d)
		used++
	}
	return n, used
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func octalPrefix(s string, maxDigits int) (n uint32, used int) {
	for used < maxDigits && used < len(s) && s[used] >= '0' && s[used] <= '7' {
		n = n<<3 | uint32(s[used]-'0')
		used++
	}
	return n, used
}

// encodeRuneRaw encodes n as UTF-8 the way bash does: any value up to
// 2^31, surrogates and values past U+10FFFF included.
func encodeRuneRaw(n uint32) []byte {
	switch {
	case n < 0x80:
		return []byte{byte(n)}
	case n < 0x800:
		return []byte{0xc0 | byte(n>>6), 0x80 | byte(n&0x3f)}
	case n < 0x10000:
		return []byte{0xe0 | byte(n>>12), 0x80 | byte(n>>6&0x3f), 0x80 | byte(n&0x3f)}
	case n < 0x200000:
		return []byte{0xf0 | byte(n>>18), 0x80 | byte(n>>12&0x3f), 0x80 | byte(n>>6&0x3f), 0x80 | byte(n&0x3f)}
	case n < 0x4000000:
		return []byte{0xf8 | byte(n>>24), 0x80 | byte(n>>18&0x3f), 0x80 | byte(n>>12&0x3f), 0x80 | byte(n>>6&0x3f), 0x80 | byte(n&0x3f)}
	}
	return []byte{0xfc | byte(n>>30&1), 0x80 | byte(n>>24&0x3f), 0x80 | byte(n>>18&0x3f), 0x80 | byte(n>>12&0x3f), 0x80 | byte(n>>6&0x3f), 0x80 | byte(n&0x3f)}
}
