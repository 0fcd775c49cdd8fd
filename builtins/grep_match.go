package builtins

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"
)

// grepMatcher decides whether a line matches grep's patterns and where.
// It keeps a scratch buffer and serves one call at a time.
type grepMatcher struct {
	never bool // no patterns at all (an empty -f file)
	// A single literal pattern is searched with bytes.Index: lit (lower
	// case under -i, fold), with -w's boundaries checked by hand (litWord)
	// or -x's equality (litLine).
	isLit, fold, litWord, litLine bool
	lit, folded                   []byte

	re     *regexp.Regexp // the patterns, with -x or -w applied
	reLong *regexp.Regexp // the same, leftmost-longest, for -o
	// For -w, re captures the word in group 1, after a non-word byte or
	// the line's start; more finds the next word after a match, with a
	// non-word byte before it.
	word bool
	more *regexp.Regexp
}

// grepMode is the pattern syntax: -G (basic), -E (extended), -F (fixed).
type grepMode byte

const (
	grepBasic    grepMode = 'G'
	grepExtended grepMode = 'E'
	grepFixed    grepMode = 'F'
)

// newGrepMatcher compiles the patterns as grep reads them; warnings are
// the lines GNU grep prints before searching ("* at start of
// expression").
func newGrepMatcher(pats []string, mode grepMode, icase, word, line bool) (m *grepMatcher, warnings []string, err error) {
	if len(pats) == 0 {
		return &grepMatcher{never: true}, nil, nil
	}
	res := make([]string, len(pats))
	for i, p := range pats {
		if mode == grepFixed {
			res[i] = grepQuote(p)
			continue
		}
		t, err := grepTranslate(p, grepSyntax{extended: mode == grepExtended})
		if err != nil {
			return nil, nil, err
		}
		res[i] = t.re
		warnings = append(warnings, t.warnings...)
	}
	if len(pats) == 1 {
		lit, ok := pats[0], mode == grepFixed
		if !ok {
			if re, err := regexp.Compile(res[0]); err == nil {
				var prefix string
				prefix, ok = re.LiteralPrefix()
				lit = prefix
				ok = ok && !strings.ContainsRune(lit, utf8.RuneError)
			}
		}
		if ok && (!icase || grepASCII(lit)) {
			m := &grepMatcher{isLit: true, fold: icase, litWord: word && !line, litLine: line, lit: []byte(lit)}
			if icase {
				m.lit = grepLower(nil, m.lit)
			}
			return m, warnings, nil
		}
	}
	base := res[0]
	if len(res) > 1 {
		base = "(?:" + strings.Join(res, ")|(?:") + ")"
	}
	flags := "(?s)"
	if icase {
		flags = "(?si)"
	}
	m = &grepMatcher{}
	switch {
	case line:
		base = "^(?:" + base + ")$"
	case word:
		m.word = true
		if m.more, err = grepCompile(flags+`\W(`+base+`)(?:\W|$)`, true); err != nil {
			return nil, nil, err
		}
		base = `(?:^|\W)(` + base + `)(?:\W|$)`
	}
	if m.re, err = grepCompile(flags+base, false); err != nil {
		return nil, nil, err
	}
	if m.reLong, err = grepCompile(flags+base, true); err != nil {
		return nil, nil, err
	}
	return m, warnings, nil
}

// grepQuote is a fixed string as RE2 text; a byte that is not UTF-8
// stands for any such byte.
func grepQuote(p string) string {
	if utf8.ValidString(p) {
		return regexp.QuoteMeta(p)
	}
	var b strings.Builder
	for len(p) > 0 {
		r, n := utf8.DecodeRuneInString(p)
		if r == utf8.RuneError && n == 1 {
			b.WriteString(`\x{FFFD}`)
		} else {
			b.WriteString(regexp.QuoteMeta(p[:n]))
		}
		p = p[n:]
	}
	return b.String()
}

func grepASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// grepLower appends b with ASCII letters lowered: -i in the C locale.
func grepLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// grepWordByte reports whether c is a word constituent in the C locale.
func grepWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// hay is the line the literal is searched in.
func (m *grepMatcher) hay(line []byte) []byte {
	if m.fold {
		m.folded = grepLower(m.folded[:0], line)
		return m.folded
	}
	return line
}

// litNext is the start of the first occurrence of the literal at or
// after from that -w accepts, -1 when none.
func (m *grepMatcher) litNext(hay []byte, from int) int {
	for from <= len(hay) {
		i := bytes.Index(hay[from:], m.lit)
		if i < 0 {
			return -1
		}
		s, e := from+i, from+i+len(m.lit)
		if !m.litWord || (s == 0 || !grepWordByte(hay[s-1])) && (e == len(hay) || !grepWordByte(hay[e])) {
			return s
		}
		from = s + 1
	}
	return -1
}

// match reports whether line holds a match.
func (m *grepMatcher) match(line []byte) bool {
	switch {
	case m.never:
		return false
	case m.isLit:
		hay := m.hay(line)
		if m.litLine {
			return bytes.Equal(hay, m.lit)
		}
		return m.litNext(hay, 0) >= 0
	}
	return m.re.Match(line)
}

// each calls fn with the start and end of every non-empty match in line,
// left to right, as -o prints them.
func (m *grepMatcher) each(line []byte, fn func(s, e int)) {
	switch {
	case m.never:
	case m.isLit:
		if len(m.lit) == 0 {
			return
		}
		hay := m.hay(line)
		if m.litLine {
			if bytes.Equal(hay, m.lit) {
				fn(0, len(line))
			}
			return
		}
		for off := 0; ; {
			s := m.litNext(hay, off)
			if s < 0 {
				return
			}
			fn(s, s+len(m.lit))
			off = s + len(m.lit)
		}
	case m.word:
		loc := m.reLong.FindSubmatchIndex(line)
		for loc != nil {
			s, e := loc[2], loc[3]
			if e > s {
				fn(s, e)
			}
			if e == s {
				// an empty word: step past one byte to move on
				e++
			}
			if e >= len(line) {
				return
			}
			next := m.more.FindSubmatchIndex(line[e:])
			if next == nil {
				return
			}
			for i := range next {
				next[i] += e
			}
			loc = next
		}
	default:
		for _, loc := range m.reLong.FindAllIndex(line, -1) {
			if loc[1] > loc[0] {
				fn(loc[0], loc[1])
			}
		}
	}
}
