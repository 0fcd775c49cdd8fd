package bashcompat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The pattern matching of bash with shopt -s extglob, for what mvdan/sh
// matches otherwise (docs/mvdan.md, "Extglob"): *, ?, [...], a backslash
// quoting the next character, and the groups ?(…), *(…), +(…), @(…) and
// !(…) of |-separated patterns, nested at any depth. Patterns are matched
// by backtracking, which file names and shell values keep small.

// matchMode is how a pattern matches.
type matchMode struct {
	nocase bool // letters match without their case
	ext    bool // the extglob groups are groups, not literal text
}

// extMatch reports whether name matches pat as a whole.
func extMatch(pat, name string, m matchMode) bool {
	return matchFrom(pat, name, m)
}

func matchFrom(pat, name string, m matchMode) bool {
	for pat != "" {
		if op, alts, rest, ok := extGroup(pat); ok && m.ext {
			return matchGroup(op, alts, rest, name, m)
		}
		switch pat[0] {
		case '*':
			for len(pat) > 0 && pat[0] == '*' {
				if _, _, _, ok := extGroup(pat); ok && m.ext {
					break
				}
				pat = pat[1:]
			}
			if pat == "" {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchFrom(pat, name[i:], m) {
					return true
				}
			}
			return false
		case '?':
			if name == "" {
				return false
			}
			_, n := utf8.DecodeRuneInString(name)
			pat, name = pat[1:], name[n:]
		case '[':
			r, n := utf8.DecodeRuneInString(name)
			ok, used := matchBracket(pat, r, m.nocase)
			if used == 0 { // no closing ]: a literal [
				if name == "" || name[0] != '[' {
					return false
				}
				pat, name = pat[1:], name[1:]
				continue
			}
			if name == "" || !ok {
				return false
			}
			pat, name = pat[used:], name[n:]
		default:
			pc, pn := utf8.DecodeRuneInString(pat)
			if pc == '\\' && len(pat) > 1 {
				pc, pn = utf8.DecodeRuneInString(pat[1:])
				pn++
			}
			nc, nn := utf8.DecodeRuneInString(name)
			if name == "" || pc != nc && !(m.nocase && equalFold(pc, nc)) {
				return false
			}
			pat, name = pat[pn:], name[nn:]
		}
	}
	return name == ""
}

func equalFold(a, b rune) bool { return unicode.ToLower(a) == unicode.ToLower(b) }

// extGroup splits the extglob group pat begins with: its operator, its
// patterns and what follows its closing parenthesis.
func extGroup(pat string) (op byte, alts []string, rest string, ok bool) {
	if len(pat) < 2 || pat[1] != '(' || strings.IndexByte("?*+@!", pat[0]) < 0 {
		return 0, nil, "", false
	}
	depth, start := 0, 2
	for i := 1; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '[':
			if _, used := matchBracket(pat[i:], 0, false); used > 0 {
				i += used - 1
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return pat[0], append(alts, pat[start:i]), pat[i+1:], true
			}
		case '|':
			if depth == 1 {
				alts = append(alts, pat[start:i])
				start = i + 1
			}
		}
	}
	return 0, nil, "", false
}

// matchGroup matches name against a group followed by rest.
func matchGroup(op byte, alts []string, rest, name string, m matchMode) bool {
	anyAlt := func(s string) bool {
		for _, a := range alts {
			if matchFrom(a, s, m) {
				return true
			}
		}
		return false
	}
	switch op {
	case '@', '?':
		if op == '?' && matchFrom(rest, name, m) {
			return true
		}
		for k := 0; k <= len(name); k++ {
			if anyAlt(name[:k]) && matchFrom(rest, name[k:], m) {
				return true
			}
		}
	case '*', '+':
		if op == '*' && matchFrom(rest, name, m) {
			return true
		}
		// One or more non-empty repetitions, then rest.
		for k := 1; k <= len(name); k++ {
			if anyAlt(name[:k]) && (matchFrom(rest, name[k:], m) || matchGroup('+', alts, rest, name[k:], m)) {
				return true
			}
		}
		if op == '+' && anyAlt("") && matchFrom(rest, name, m) {
			return true
		}
	case '!':
		for k := 0; k <= len(name); k++ {
			if !anyAlt(name[:k]) && matchFrom(rest, name[k:], m) {
				return true
			}
		}
	}
	return false
}

// matchBracket matches r against the bracket expression pat begins with;
// used is its length, 0 when it has no closing bracket.
func matchBracket(pat string, r rune, nocase bool) (ok bool, used int) {
	i := 1
	negate := i < len(pat) && (pat[i] == '!' || pat[i] == '^')
	if negate {
		i++
	}
	matched := false
	first := true
	for i < len(pat) {
		if pat[i] == ']' && !first {
			return matched != negate, i + 1
		}
		first = false
		if strings.HasPrefix(pat[i:], "[:") {
			if end := strings.Index(pat[i+2:], ":]"); end >= 0 {
				matched = matched || inClass(pat[i+2:i+2+end], r)
				i += end + 4
				continue
			}
		}
		lo, n := utf8.DecodeRuneInString(pat[i:])
		if lo == '\\' && i+1 < len(pat) {
			i++
			lo, n = utf8.DecodeRuneInString(pat[i:])
		}
		i += n
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			hi, n = utf8.DecodeRuneInString(pat[i+1:])
			i += 1 + n
		}
		if lo <= r && r <= hi || nocase && (lo <= unicode.ToLower(r) && unicode.ToLower(r) <= hi || lo <= unicode.ToUpper(r) && unicode.ToUpper(r) <= hi) {
			matched = true
		}
	}
	return false, 0
}

func inClass(class string, r rune) bool {
	switch class {
	case "alpha":
		return unicode.IsLetter(r)
	case "digit":
		return r >= '0' && r <= '9'
	case "alnum":
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	case "upper":
		return unicode.IsUpper(r)
	case "lower":
		return unicode.IsLower(r)
	case "space":
		return unicode.IsSpace(r)
	case "blank":
		return r == ' ' || r == '\t'
	case "punct":
		return unicode.IsPunct(r) || unicode.IsSymbol(r) && r < 0x80
	case "xdigit":
		return strings.ContainsRune("0123456789abcdefABCDEF", r)
	case "cntrl":
		return unicode.IsControl(r)
	case "print":
		return unicode.IsPrint(r)
	case "graph":
		return unicode.IsPrint(r) && r != ' '
	case "word":
		return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return false
}
