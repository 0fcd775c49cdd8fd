// Package jsonquote writes a Go string as a JSON string literal exactly
// as encoding/json's Encoder does with SetEscapeHTML(false), without its
// reflection: for the encoders of shelter's hot paths (the Result's
// JSON, an MCP tool result), which must write the bytes encoding/json
// would.
package jsonquote

import "unicode/utf8"

const hex = "0123456789abcdef"

// Append appends s to dst as a quoted JSON string: '"' and '\\' escaped,
// control characters as \b, \f, \n, \r, \t or \u00XX, each byte of
// invalid UTF-8 as \ufffd, and U+2028 and U+2029 as \u2028 and \u2029;
// '<', '>' and '&' stay as they are.
func Append(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
