package kernel

import (
	"slices"
	"strings"
)

// The shell's echo writes a line in several pieces; pipeline stages run
// concurrently and share stderr and the result's stdout, so a line could
// be cut by another stage's. shelter answers echo itself (in the call
// handler, see bashBuiltins), building the whole output first and writing
// it once.

// echoOutput is what echo prints for its arguments, as bash's echo: a
// leading word of only n, e and E letters after a dash is a flag (-neE),
// anything else (-x, -n-) a word; with -e, escapes expand and \c ends
// the output.
func echoOutput(args []string) string {
	if len(args) == 1 && !strings.HasPrefix(args[0], "-") {
		return args[0] + "\n"
	}
	newline, escapes := true, false
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
	var b strings.Builder
	for i, arg := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if escapes {
			var stop bool
			arg, stop = expandEscapes(arg, escapeEcho)
			if stop {
				b.WriteString(arg)
				return b.String()
			}
		}
		b.WriteString(arg)
	}
	if newline {
		b.WriteByte('\n')
	}
	return b.String()
}

func isEchoFlags(w string) bool {
	if len(w) < 2 || w[0] != '-' {
		return false
	}
	return strings.Trim(w[1:], "neE") == ""
}

func (st *callState) hasFunc(name string) bool {
	return st != nil && slices.Contains(st.funcs, name)
}
