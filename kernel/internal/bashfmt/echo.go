package bashfmt

import "strings"

// AppendEcho appends to dst what echo prints for its arguments, as bash's
// echo: a leading word of only n, e and E letters after a dash is a flag
// (-neE), anything else (-x, -n-) a word; with -e, escapes expand and \c
// ends the output. escapes is the state before the flags: true under
// shopt -s xpg_echo.
func AppendEcho(dst []byte, args []string, escapes bool) []byte {
	if len(args) == 1 && !strings.HasPrefix(args[0], "-") && !escapes {
		return append(append(dst, args[0]...), '\n')
	}
	newline := true
	for len(args) > 0 && isEchoFlags(args[0]) {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	for i, arg := range args {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if escapes {
			var stop bool
			arg, stop = expandEscapes(arg, escapeEcho)
			if stop {
				return append(dst, arg...)
			}
		}
		dst = append(dst, arg...)
	}
	if newline {
		dst = append(dst, '\n')
	}
	return dst
}

func isEchoFlags(w string) bool {
	if len(w) < 2 || w[0] != '-' {
		return false
	}
	return strings.Trim(w[1:], "neE") == ""
}
