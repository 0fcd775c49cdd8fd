package builtins

import (
	"bytes"
	"regexp"
	"strings"
)

// grepMatcher decides whether a line matches grep's patterns and where.
type grepMatcher struct {
	never bool           // no patterns at all (an empty -f file)
	lit   []byte         // the one literal pattern, when literal is set
	lit1  bool           // lit is the whole matcher: bytes.Index, no regexp
	re    *regexp.Regexp // the patterns, with -x or -w applied
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
			res[i] = regexp.QuoteMeta(p)
			continue
		}
		t, err := grepTranslate(p, grepSyntax{extended: mode == grepExtended})
		if err != nil {
			return nil, nil, err
		}
		res[i] = t.re
		warnings = append(warnings, t.warnings...)
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
		m.re, err = grepCompile(flags + "^(?:" + base + ")$")
	case word:
		m.word = true
		if m.re, err = grepCompile(flags + `(?:^|\W)(` + base + `)(?:\W|$)`); err == nil {
			m.more, err = grepCompile(flags + `\W(` + base + `)(?:\W|$)`)
		}
	default:
		m.re, err = grepCompile(flags + base)
		if err == nil && !icase {
			if prefix, complete := m.re.LiteralPrefix(); complete {
				m.lit, m.lit1 = []byte(prefix), true
			}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return m, warnings, nil
}

// match reports whether line holds a match.
func (m *grepMatcher) match(line []byte) bool {
	switch {
	case m.never:
		return false
	case m.lit1:
		return bytes.Index(line, m.lit) >= 0
	}
	return m.re.Match(line)
}

// each calls fn with the start and end of every non-empty match in line,
// left to right, as -o prints them.
func (m *grepMatcher) each(line []byte, fn func(s, e int)) {
	switch {
	case m.never:
	case m.lit1:
		if len(m.lit) == 0 {
			return
		}
		for off := 0; ; {
			i := bytes.Index(line[off:], m.lit)
			if i < 0 {
				return
			}
			fn(off+i, off+i+len(m.lit))
			off += i + len(m.lit)
		}
	case m.word:
		loc := m.re.FindSubmatchIndex(line)
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
		for _, loc := range m.re.FindAllIndex(line, -1) {
			if loc[1] > loc[0] {
				fn(loc[0], loc[1])
			}
		}
	}
}
