package builtins

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shelter-sh/shelter/kernel"
)

// grepSyntax says how a POSIX pattern is read: as a basic (BRE) or an
// extended (ERE) regular expression, and whether sed's escapes (\n, \t,
// …) are known.
type grepSyntax struct {
	extended bool
	sed      bool
}

// grepRegexError is a pattern GNU would reject, with GNU's wording
// ("Unmatched ( or \(").
type grepRegexError struct{ msg string }

func (e *grepRegexError) Error() string { return e.msg }

// grepBackrefError is a pattern with a backreference, which RE2 cannot
// match.
type grepBackrefError struct{ ref string }

func (e *grepBackrefError) Error() string { return e.what() }

func (e *grepBackrefError) what() string {
	return "backreference " + kernel.Quote(e.ref) + " is not supported: RE2 has no backreferences"
}

// refusal is the command's refusal of the pattern: no form of it is
// allowed.
func (e *grepBackrefError) refusal(command string) *kernel.Refusal {
	return &kernel.Refusal{Command: command, What: e.what()}
}

// grepTranslation is a POSIX pattern rewritten in RE2 syntax, with the
// warnings GNU grep prints for it.
type grepTranslation struct {
	re       string
	warnings []string
}

// grepTranslate rewrites a POSIX regular expression, as GNU reads it in
// the C locale, into Go's RE2 syntax: BRE's \( \) \{ \} \| \+ \? become
// operators and its bare + ? { } | ( ) literals, a leading * is literal
// (BRE) or ignored (ERE), ^ and $ anchor only where POSIX says, and
// bracket expressions keep their backslashes literal. \< and \> become
// \b. A backreference is a *grepBackrefError.
func grepTranslate(pat string, syn grepSyntax) (grepTranslation, error) {
	t := &grepTranslator{src: pat, syn: syn}
	if err := t.run(); err != nil {
		return grepTranslation{}, err
	}
	return grepTranslation{re: t.out.String(), warnings: t.warnings}, nil
}

type grepTranslator struct {
	src      string
	syn      grepSyntax
	i        int
	out      strings.Builder
	warnings []string
	// atom is where the last atom starts in out (-1: none yet, so a
	// repetition here is at the start of an expression); repeated says
	// the atom already carries an operator.
	atom     int
	repeated bool
	groups   []int // where each open group starts in out
	err      error
}

func (t *grepTranslator) run() error {
	t.atom = -1
	for t.i < len(t.src) {
		c := t.src[t.i]
		t.i++
		switch {
		case c == '\\':
			if t.i >= len(t.src) {
				return &grepRegexError{"Trailing backslash"}
			}
			e := t.src[t.i]
			t.i++
			if err := t.escape(e); err != nil {
				return err
			}
		case c == '[':
			start := t.out.Len()
			if err := t.bracket(); err != nil {
				return err
			}
			t.setAtom(start)
		case c == '.':
			t.literalRaw(".")
		case c == '*':
			if t.atom < 0 {
				if t.syn.extended {
					t.warnings = append(t.warnings, "* at start of expression")
					continue
				}
				t.literal('*')
				continue
			}
			t.repeat("*")
		case c == '^':
			if t.syn.extended || t.atStart() {
				t.anchor("^")
			} else {
				t.literal('^')
			}
		case c == '$':
			if t.syn.extended || t.atEnd() {
				t.anchor("$")
			} else {
				t.literal('$')
			}
		case t.syn.extended && (c == '+' || c == '?'):
			if t.atom < 0 {
				t.warnings = append(t.warnings, string(c)+" at start of expression")
				continue
			}
			t.repeat(string(c))
		case t.syn.extended && c == '{':
			if !t.interval(false) {
				t.literal('{')
			}
		case t.syn.extended && c == '(':
			t.open()
		case t.syn.extended && c == ')':
			if len(t.groups) == 0 {
				t.literal(')')
				continue
			}
			t.close()
		case t.syn.extended && c == '|':
			t.alternate()
		default:
			t.byteLiteral(c)
		}
	}
	if t.err != nil {
		return t.err
	}
	if len(t.groups) > 0 {
		return &grepRegexError{"Unmatched ( or \\("}
	}
	return nil
}

// escape handles the character after a backslash.
func (t *grepTranslator) escape(e byte) error {
	bre := !t.syn.extended
	switch {
	case e >= '1' && e <= '9':
		return &grepBackrefError{ref: "\\" + string(e)}
	case bre && e == '(':
		t.open()
	case bre && e == ')':
		if len(t.groups) == 0 {
			return &grepRegexError{"Unmatched ) or \\)"}
		}
		t.close()
	case bre && e == '|':
		t.alternate()
	case bre && (e == '+' || e == '?'):
		if t.atom < 0 {
			t.literal(e)
			return nil
		}
		t.repeat(string(e))
	case bre && e == '{':
		if t.atom < 0 {
			return &grepRegexError{"Invalid preceding regular expression"}
		}
		if !t.interval(true) {
			if t.err != nil {
				return t.err
			}
			return &grepRegexError{"Unmatched \\{"}
		}
		if t.err != nil {
			return t.err
		}
	case e == '<' || e == '>' || e == 'b':
		t.anchor(`\b`)
	case e == 'B':
		t.anchor(`\B`)
	case e == '`':
		t.anchor(`\A`)
	case e == '\'':
		t.anchor(`\z`)
	case e == 'w' || e == 'W' || e == 's' || e == 'S':
		t.literalRaw(`\` + string(e))
	case t.syn.sed && e == 'n':
		t.literal('\n')
	case t.syn.sed && e == 't':
		t.literal('\t')
	case t.syn.sed && e == 'r':
		t.literal('\r')
	case t.syn.sed && e == 'f':
		t.literal('\f')
	case t.syn.sed && e == 'v':
		t.literal('\v')
	case t.syn.sed && e == 'a':
		t.literal('\a')
	default:
		t.byteLiteral(e)
	}
	return t.err
}

// atStart reports whether a BRE ^ here is an anchor: at the start, or
// after \( or \|.
func (t *grepTranslator) atStart() bool {
	p := t.i - 1
	if p == 0 {
		return true
	}
	return p >= 2 && t.src[p-2] == '\\' && (t.src[p-1] == '(' || t.src[p-1] == '|')
}

// atEnd reports whether a BRE $ here is an anchor: at the end, or before
// \) or \|.
func (t *grepTranslator) atEnd() bool {
	rest := t.src[t.i:]
	return rest == "" || strings.HasPrefix(rest, `\)`) || strings.HasPrefix(rest, `\|`)
}

func (t *grepTranslator) setAtom(start int) {
	t.atom = start
	t.repeated = false
}

func (t *grepTranslator) literalRaw(s string) {
	start := t.out.Len()
	t.out.WriteString(s)
	t.setAtom(start)
}

func (t *grepTranslator) literal(c byte) {
	start := t.out.Len()
	t.out.WriteString(regexp.QuoteMeta(string(c)))
	t.setAtom(start)
}

// byteLiteral writes one character of the pattern; a byte that is not
// part of valid UTF-8 matches any such byte of the input, which Go
// decodes as U+FFFD.
func (t *grepTranslator) byteLiteral(c byte) {
	if c < utf8.RuneSelf {
		t.literal(c)
		return
	}
	start := t.out.Len()
	r, n := utf8.DecodeRuneInString(t.src[t.i-1:])
	if r == utf8.RuneError && n <= 1 {
		t.out.WriteString(`\x{FFFD}`)
	} else {
		t.out.WriteString(t.src[t.i-1 : t.i-1+n])
		t.i += n - 1
	}
	t.setAtom(start)
}

// anchor writes a zero-width assertion. A repetition after it is at the
// start of an expression again only for ^.
func (t *grepTranslator) anchor(s string) {
	start := t.out.Len()
	t.out.WriteString(s)
	if s == "^" {
		t.atom = -1
		return
	}
	t.setAtom(start)
}

// repeat applies an operator to the last atom; RE2 refuses stacked
// operators (a**), so an atom that has one already is grouped first.
func (t *grepTranslator) repeat(op string) {
	if t.repeated {
		s := t.out.String()
		t.out.Reset()
		t.out.WriteString(s[:t.atom] + "(?:" + s[t.atom:] + ")")
	}
	t.out.WriteString(op)
	t.repeated = true
}

// interval reads {m,n} (the brace already consumed); bre says it ends
// with \}. It reports false, consuming nothing, when the text is no
// interval (a literal { in an ERE); t.err is set when GNU rejects it.
func (t *grepTranslator) interval(bre bool) bool {
	rest := t.src[t.i:]
	end := `}`
	if bre {
		end = `\}`
	}
	j := strings.Index(rest, end)
	if j < 0 {
		return false
	}
	body := rest[:j]
	lo, hi, comma := strings.Cut(body, ",")
	if strings.Trim(lo, "0123456789") != "" || strings.Trim(hi, "0123456789") != "" || (lo == "" && !comma) {
		if bre {
			t.err = &grepRegexError{"Invalid content of \\{\\}"}
			return true
		}
		return false
	}
	if t.atom < 0 {
		if !t.syn.extended {
			t.err = &grepRegexError{"Invalid preceding regular expression"}
			return true
		}
		t.warnings = append(t.warnings, "{...} at start of expression")
		t.i += j + len(end)
		return true
	}
	if lo == "" {
		lo = "0"
	}
	l, _ := strconv.Atoi(lo)
	if hi != "" {
		h, _ := strconv.Atoi(hi)
		if h < l {
			t.err = &grepRegexError{"Invalid content of \\{\\}"}
			return true
		}
	}
	if l > 1000 || len(hi) > 4 {
		t.err = &grepRegexError{"Regular expression too big"}
		return true
	}
	t.i += j + len(end)
	op := "{" + lo
	if comma {
		op += "," + hi
	}
	t.repeat(op + "}")
	return true
}

func (t *grepTranslator) open() {
	t.groups = append(t.groups, t.out.Len())
	t.out.WriteString("(")
	t.atom = -1
}

// close ends a group, which is then one atom.
func (t *grepTranslator) close() {
	start := t.groups[len(t.groups)-1]
	t.groups = t.groups[:len(t.groups)-1]
	t.out.WriteString(")")
	t.setAtom(start)
}

func (t *grepTranslator) alternate() {
	t.out.WriteString("|")
	t.atom = -1
}

var grepClassNames = map[string]bool{
	"alpha": true, "digit": true, "alnum": true, "upper": true, "lower": true, "space": true,
	"blank": true, "punct": true, "print": true, "graph": true, "cntrl": true, "xdigit": true,
}

// bracket reads a bracket expression (the [ consumed) and writes it for
// RE2, its backslashes and brackets escaped.
func (t *grepTranslator) bracket() error {
	unmatched := &grepRegexError{"Unmatched [, [^, [:, [., or [="}
	t.out.WriteString("[")
	if t.i < len(t.src) && t.src[t.i] == '^' {
		t.out.WriteString("^")
		t.i++
	}
	first := true
	for {
		if t.i >= len(t.src) {
			return unmatched
		}
		c := t.src[t.i]
		switch {
		case c == ']' && !first:
			t.i++
			t.out.WriteString("]")
			return nil
		case c == '[' && t.i+1 < len(t.src) && strings.IndexByte(":=.", t.src[t.i+1]) >= 0:
			kind := t.src[t.i+1]
			end := strings.Index(t.src[t.i+2:], string(kind)+"]")
			if end < 0 {
				return unmatched
			}
			body := t.src[t.i+2 : t.i+2+end]
			t.i += 2 + end + 2
			switch kind {
			case ':':
				if !grepClassNames[body] {
					return &grepRegexError{"Invalid character class name"}
				}
				t.out.WriteString("[:" + body + ":]")
			default:
				if len(body) != 1 {
					return &grepRegexError{"Invalid collation character"}
				}
				t.out.WriteString(grepClassChar(body[0]))
			}
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(t.src[t.i:])
			if r == utf8.RuneError && n <= 1 {
				t.out.WriteString(`\x{FFFD}`)
			} else {
				t.out.WriteString(t.src[t.i : t.i+n])
			}
			t.i += n
		case c == '-':
			t.out.WriteByte('-')
			t.i++
		default:
			t.out.WriteString(grepClassChar(c))
			t.i++
		}
		first = false
	}
}

func grepClassChar(c byte) string {
	switch c {
	case '\\', ']', '[', '^', '-':
		return `\` + string(c)
	case '\n':
		return `\n`
	}
	if c < ' ' || c == 0x7f {
		return fmt.Sprintf(`\x%02x`, c)
	}
	return string(c)
}

// grepCompile compiles translated RE2 text, mapping Go's errors to
// GNU's wording; longest makes it match leftmost-longest, as POSIX does,
// for where a match lies (whether one exists needs no such care).
func grepCompile(re string, longest bool) (*regexp.Regexp, error) {
	r, err := regexp.Compile(re)
	if err != nil {
		msg := err.Error()
		switch {
		case strings.Contains(msg, "invalid character class range"):
			return nil, &grepRegexError{"Invalid range end"}
		case strings.Contains(msg, "invalid repeat count"), strings.Contains(msg, "expression too large"):
			return nil, &grepRegexError{"Regular expression too big"}
		}
		return nil, &grepRegexError{strings.TrimPrefix(msg, "error parsing regexp: ")}
	}
	if longest {
		r.Longest()
	}
	return r, nil
}
