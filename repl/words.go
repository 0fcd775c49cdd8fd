package repl

import (
	"strings"
	"unicode/utf8"
)

// quoting is the quote a word is open in at the cursor.
type quoting byte

const (
	unquoted quoting = 0
	inSingle quoting = '\''
	inDouble quoting = '"'
)

// token is a word or an operator of a line, as the shell splits it.
type token struct {
	// value is the word with its quotes and backslashes removed; $NAME
	// and ${NAME} outside single quotes are replaced by the variable's
	// value. An operator's value is the operator.
	value string
	op    bool // ;, |, &&, (, <, ... rather than a word
}

// lastWord is the word the cursor ends: its text as typed, its value
// (as a token's), the quote it is open in and, when it ends in a
// variable's name being typed ($NA, "${NA"), where that $ is in raw.
type lastWord struct {
	raw    string
	value  string
	quote  quoting
	dollar int // index in raw of the $ of a name being typed; -1 for none
	// tilde is true for a word that starts with an unquoted ~; pending
	// for one that ends in a backslash, which quotes what comes next.
	tilde, pending bool
}

// splitLine splits the text before the cursor into the tokens before the
// word being typed and that word, following the shell's quoting: single
// and double quotes, backslashes, comments. vars expands the values of
// $NAME and ${NAME}. Command substitutions and other expansions are left
// as typed.
func splitLine(src string, vars map[string]string) (prior []token, last lastWord) {
	var raw, val strings.Builder
	last.dollar = -1
	q := unquoted
	inWord := false
	end := func() {
		if inWord {
			prior = append(prior, token{value: val.String()})
		}
		raw.Reset()
		val.Reset()
		inWord, q = false, unquoted
		last.dollar = -1
	}
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRuneInString(src[i:])
		switch {
		case q == inSingle:
			if r == '\'' {
				q = unquoted
			} else {
				val.WriteRune(r)
			}
		case r == '\\' && (q == unquoted || q == inDouble && i+1 < len(src) && strings.IndexByte("$`\"\\\n", src[i+1]) >= 0):
			raw.WriteByte('\\')
			inWord = true
			if i+1 >= len(src) {
				last.pending = true
				i++
				continue
			}
			next, nsize := utf8.DecodeRuneInString(src[i+1:])
			raw.WriteRune(next)
			if next != '\n' {
				val.WriteRune(next)
			}
			i += 1 + nsize
			continue
		case q == inDouble && r == '"':
			q = unquoted
		case r == '$':
			name, n, closed := varName(src[i+1:])
			if i+1+n == len(src) && !closed {
				// The name being typed.
				last.dollar = raw.Len()
				raw.WriteString(src[i:])
				val.WriteString(src[i:])
				inWord = true
				i = len(src)
				continue
			}
			if n > 0 && (name != "" || closed) {
				raw.WriteString(src[i : i+1+n])
				val.WriteString(vars[name])
				inWord = true
				i += 1 + n
				continue
			}
			val.WriteRune(r)
		case q == inDouble:
			val.WriteRune(r)
		case r == '\'':
			q = inSingle
		case r == '"':
			q = inDouble
		case r == ' ' || r == '\t' || r == '\n':
			end()
			if r == '\n' {
				prior = append(prior, token{value: ";", op: true})
			}
			i += size
			continue
		case r == '#' && !inWord:
			nl := strings.IndexByte(src[i:], '\n')
			if nl < 0 {
				i = len(src)
			} else {
				i += nl
			}
			continue
		case strings.ContainsRune(";&|()<>", r):
			end()
			n := 1
			for n < len(src)-i && strings.IndexByte(";&|<>", src[i+n]) >= 0 && n < 2 {
				n++
			}
			prior = append(prior, token{value: src[i : i+n], op: true})
			i += n
			continue
		default:
			val.WriteRune(r)
		}
		raw.WriteRune(r)
		inWord = true
		i += size
	}
	last.raw, last.value, last.quote = raw.String(), val.String(), q
	last.tilde = strings.HasPrefix(last.raw, "~")
	return prior, last
}

// varName reads the name after a $: NAME or {NAME}. n is how much of s it
// takes; closed is true for a {NAME} with its }.
func varName(s string) (name string, n int, closed bool) {
	braced := strings.HasPrefix(s, "{")
	start := 0
	if braced {
		start = 1
	}
	end := start
	for end < len(s) && isNameByte(s[end]) {
		end++
	}
	name = s[start:end]
	if braced {
		if end < len(s) && s[end] == '}' {
			return name, end + 1, true
		}
		return name, end, false
	}
	return name, end, false
}

func isNameByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// extend is the word typed as w continued by rest, quoted as w is open
// in; closing closes w's quote after it (a file's name is whole, a
// directory's goes on).
func (w lastWord) extend(rest string, closing bool) string {
	var b strings.Builder
	b.WriteString(w.raw)
	switch w.quote {
	case inSingle:
		b.WriteString(strings.ReplaceAll(rest, "'", `'\''`))
	case inDouble:
		for _, r := range rest {
			if strings.ContainsRune("$`\"\\", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	default:
		if w.pending && rest != "" {
			// The typed backslash quotes the first character.
			r, size := utf8.DecodeRuneInString(rest)
			b.WriteRune(r)
			rest = rest[size:]
		}
		if strings.ContainsAny(rest, "\n\r") {
			// A backslash does not keep a newline: quote the rest.
			b.WriteString("'" + strings.ReplaceAll(rest, "'", `'\''`) + "'")
			return b.String()
		}
		for i, r := range rest {
			special := strings.ContainsRune(" \t\"'\\$`|&;()<>*?[]{}!", r) ||
				i == 0 && w.raw == "" && (r == '~' || r == '#')
			if special {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	if closing && w.quote != unquoted {
		b.WriteByte(byte(w.quote))
	}
	return b.String()
}
