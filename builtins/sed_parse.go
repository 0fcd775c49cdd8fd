package builtins

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shelter-sh/shelter/kernel"
)

// sedAddrKind is what an address matches.
type sedAddrKind byte

const (
	sedLine  sedAddrKind = iota + 1 // N
	sedLast                         // $
	sedRegex                        // /re/
	sedStep                         // first~step
	sedZero                         // 0 (only as 0,/re/)
	sedPlus                         // addr,+N
	sedMult                         // addr,~N
)

type sedAddr struct {
	kind        sedAddrKind
	n, step     int64
	re          *regexp.Regexp // nil for // (the last regex used)
	emptyRegexp bool
}

// sedCmd is one command of a script; blocks are flat, '{' knowing where
// its '}' is.
type sedCmd struct {
	a1, a2 *sedAddr
	negate bool
	name   byte

	// range state while running
	active   bool
	rangeEnd int64

	re      *regexp.Regexp // s; nil with emptyRe for s//…/
	lit     []byte         // re as a literal, searched with bytes.Index
	emptyRe bool
	repl    []sedPart
	global  bool
	nth     int
	print   bool

	text   string // a, i, c
	label  string // b, t, T, :
	target int    // b, t, T: the command to go to; '{': past its '}'
	trans  *[256]byte
	code   int // q, Q
}

// sedPart is a piece of an s replacement: literal text, a group (0 for
// &), or a case conversion (\U \L \E \u \l).
type sedPart struct {
	lit   string
	group int // -1 for literal/case
	conv  byte
}

// sedScriptError is a script GNU sed rejects, placed as GNU places it.
type sedScriptError struct {
	where  string // "-e expression #1, char 5" or "" for link errors
	msg    string
	status int // 1 unless GNU panics (4)
}

func (e *sedScriptError) Error() string {
	if e.where == "" {
		return e.msg
	}
	return e.where + ": " + e.msg
}

// sedPiece is one -e, -f or operand script, for error positions.
type sedPiece struct {
	start int
	file  string // "" for -e
	num   int    // expression number
}

type sedParser struct {
	s       string
	i       int
	pieces  []sedPiece
	ere     bool
	cmds    []*sedCmd
	blocks  []int
	haveRe  bool
	refusal error
}

// sedParse compiles a whole script.
func sedParse(script string, pieces []sedPiece, ere bool) ([]*sedCmd, error) {
	p := &sedParser{s: script, pieces: pieces, ere: ere}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.cmds, nil
}

func (p *sedParser) errf(format string, a ...any) error {
	where := "-e expression #1, char " + strconv.Itoa(p.i)
	for k := len(p.pieces) - 1; k >= 0; k-- {
		pc := p.pieces[k]
		if p.i >= pc.start || k == 0 {
			if pc.file != "" {
				line := 1 + strings.Count(p.s[pc.start:min(p.i, len(p.s))], "\n")
				where = fmt.Sprintf("file %s line %d", pc.file, line)
			} else {
				where = fmt.Sprintf("-e expression #%d, char %d", pc.num, max(0, p.i-pc.start))
			}
			break
		}
	}
	return &sedScriptError{where: where, msg: fmt.Sprintf(format, a...)}
}

// noPrevious is GNU's error for // before any regex, which it places
// at char 0.
func (p *sedParser) noPrevious() error {
	p.i = 0
	return p.errf("no previous regular expression")
}

func (p *sedParser) eof() bool { return p.i >= len(p.s) }
func (p *sedParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedParser) skipSpace() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *sedParser) parse() error {
	for {
		for !p.eof() && strings.IndexByte(" \t\n;", p.s[p.i]) >= 0 {
			p.i++
		}
		if p.eof() {
			break
		}
		if p.peek() == '#' {
			for !p.eof() && p.s[p.i] != '\n' {
				p.i++
			}
			continue
		}
		cmd := &sedCmd{target: -1}
		var err error
		if cmd.a1, err = p.address(false); err != nil {
			return err
		}
		if cmd.a1 != nil {
			p.skipSpace()
			if p.peek() == ',' {
				p.i++
				p.skipSpace()
				if cmd.a2, err = p.address(true); err != nil {
					return err
				}
				if cmd.a2 == nil {
					p.i++
					return p.errf("unexpected `,'")
				}
			}
			if cmd.a1.kind == sedZero && (cmd.a2 == nil || cmd.a2.kind != sedRegex) {
				return p.errf("invalid usage of line address 0")
			}
		}
		p.skipSpace()
		if p.peek() == '!' {
			cmd.negate = true
			p.i++
			for p.peek() == ' ' || p.peek() == '\t' || p.peek() == '!' {
				if p.peek() == '!' {
					p.i++
					return p.errf("multiple `!'s")
				}
				p.i++
			}
		}
		if p.eof() {
			return p.errf("missing command")
		}
		cmd.name = p.s[p.i]
		p.i++
		if err := p.command(cmd); err != nil {
			return err
		}
		if p.refusal != nil {
			return p.refusal
		}
	}
	if len(p.blocks) > 0 {
		p.i = 0
		return p.errf("unmatched `{'")
	}
	labels := map[string]int{}
	for k, c := range p.cmds {
		if c.name == ':' {
			if _, dup := labels[c.label]; dup {
				return &sedScriptError{msg: fmt.Sprintf("-e expression #1, char 0: duplicate label `%s'", c.label)}
			}
			labels[c.label] = k
		}
	}
	for _, c := range p.cmds {
		if strings.IndexByte("btT", c.name) >= 0 && c.label != "" {
			k, ok := labels[c.label]
			if !ok {
				return &sedScriptError{msg: fmt.Sprintf("can't find label for jump to `%s'", c.label), status: 4}
			}
			c.target = k
		}
	}
	return nil
}

// address reads an address, nil when there is none. second allows
// +N and ~N.
func (p *sedParser) address(second bool) (*sedAddr, error) {
	c := p.peek()
	switch {
	case c >= '0' && c <= '9':
		n := p.number()
		if p.peek() == '~' && !second {
			p.i++
			step := p.number()
			return &sedAddr{kind: sedStep, n: n, step: step}, nil
		}
		if n == 0 && !second {
			return &sedAddr{kind: sedZero}, nil
		}
		if n == 0 {
			return nil, p.errf("invalid usage of line address 0")
		}
		return &sedAddr{kind: sedLine, n: n}, nil
	case c == '$':
		p.i++
		return &sedAddr{kind: sedLast}, nil
	case second && (c == '+' || c == '~'):
		p.i++
		if d := p.peek(); d < '0' || d > '9' {
			return nil, p.errf("expected newer version of sed")
		}
		n := p.number()
		if c == '+' {
			return &sedAddr{kind: sedPlus, n: n}, nil
		}
		return &sedAddr{kind: sedMult, n: n}, nil
	case c == '/' || c == '\\':
		p.i++
		delim := byte('/')
		if c == '\\' {
			if p.eof() {
				return nil, p.errf("unexpected `,'")
			}
			delim = p.s[p.i]
			p.i++
		}
		pat, ok := p.delimited(delim, true)
		if !ok {
			return nil, p.errf("unterminated address regex")
		}
		icase := false
		for p.peek() == 'I' || p.peek() == 'M' {
			if p.peek() == 'M' {
				p.i++
				return nil, p.refuse("the flag 'M' of a regex address is not supported", "I")
			}
			icase = true
			p.i++
		}
		a := &sedAddr{kind: sedRegex}
		if pat == "" {
			if !p.haveRe {
				return nil, p.noPrevious()
			}
			a.emptyRegexp = true
			return a, nil
		}
		re, err := p.regex(pat, icase)
		if err != nil {
			return nil, err
		}
		a.re = re
		return a, nil
	}
	return nil, nil
}

func (p *sedParser) number() int64 {
	start := p.i
	for !p.eof() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
	if err != nil {
		n = 1<<63 - 1
	}
	return n
}

// delimited reads up to an unescaped delim: \delim becomes the bare
// delimiter, \ and a newline a newline; other escapes are kept for the
// regex or replacement reader. It reports false at the end of script.
func (p *sedParser) delimited(delim byte, isRegex bool) (string, bool) {
	var b strings.Builder
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == delim:
			return b.String(), true
		case c == '\n' && isRegex:
			return "", false
		case c == '\\' && !p.eof():
			e := p.s[p.i]
			p.i++
			switch {
			case e == delim:
				if delim == '&' && !isRegex {
					b.WriteString(`\&`)
				} else {
					b.WriteByte(e)
				}
			case e == '\n':
				if isRegex {
					b.WriteString(`\n`)
				} else {
					b.WriteString("\\\n")
				}
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// regex compiles a sed regex.
func (p *sedParser) regex(pat string, icase bool) (*regexp.Regexp, error) {
	p.haveRe = true
	t, err := grepTranslate(pat, grepSyntax{extended: p.ere, sed: true})
	if err != nil {
		if be, ok := err.(*grepBackrefError); ok {
			return nil, be.refusal("sed")
		}
		return nil, p.errf("%s", err)
	}
	flags := "(?s)"
	if icase {
		flags = "(?si)"
	}
	re, err := grepCompile(flags+t.re, true)
	if err != nil {
		return nil, p.errf("%s", err)
	}
	return re, nil
}

// refuse refuses a script that uses what this sed does not do.
func (p *sedParser) refuse(what string, allowed ...string) error {
	return &kernel.Refusal{Command: "sed", What: what, Allowed: allowed}
}

// endCommand checks that a command ends here: at ;, a newline, }, # or
// the end of the script.
func (p *sedParser) endCommand() error {
	p.skipSpace()
	if p.eof() {
		return nil
	}
	switch p.s[p.i] {
	case ';', '\n':
		p.i++
		return nil
	case '}', '#':
		return nil
	}
	p.i++
	return p.errf("extra characters after command")
}

var sedCommands = strings.Split("!, #, :, =, D, F, G, H, N, P, Q, T, a, b, c, d, g, h, i, n, p, q, s, t, x, y, z, {, }", ", ")

func (p *sedParser) command(cmd *sedCmd) error {
	switch cmd.name {
	case '{':
		p.blocks = append(p.blocks, len(p.cmds))
		p.cmds = append(p.cmds, cmd)
		return nil
	case '}':
		if cmd.a1 != nil {
			return p.errf("} doesn't want any addresses")
		}
		if len(p.blocks) == 0 {
			return p.errf("unexpected `}'")
		}
		open := p.blocks[len(p.blocks)-1]
		p.blocks = p.blocks[:len(p.blocks)-1]
		p.cmds = append(p.cmds, cmd)
		p.cmds[open].target = len(p.cmds)
		return p.endCommand()
	case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		p.cmds = append(p.cmds, cmd)
		return p.endCommand()
	case 'q', 'Q':
		if cmd.a2 != nil {
			return p.errf("command only uses one address")
		}
		p.skipSpace()
		if c := p.peek(); c >= '0' && c <= '9' {
			cmd.code = int(p.number() & 0xff)
		}
		p.cmds = append(p.cmds, cmd)
		return p.endCommand()
	case ':':
		if cmd.a1 != nil {
			return p.errf(": doesn't want any addresses")
		}
		p.skipSpace()
		cmd.label = p.label()
		if cmd.label == "" {
			return p.errf("\":\" lacks a label")
		}
		p.cmds = append(p.cmds, cmd)
		return p.endCommand()
	case 'b', 't', 'T':
		p.skipSpace()
		cmd.label = p.label()
		if k := strings.IndexByte(cmd.label, '}'); k >= 0 {
			p.i -= len(cmd.label) - k
			cmd.label = cmd.label[:k]
		}
		p.cmds = append(p.cmds, cmd)
		return p.endCommand()
	case 'a', 'i', 'c':
		text, err := p.text()
		if err != nil {
			return err
		}
		cmd.text = text
		p.cmds = append(p.cmds, cmd)
		return nil
	case 's':
		return p.substitute(cmd)
	case 'y':
		return p.transliterate(cmd)
	case 'l', 'r', 'R', 'w', 'W', 'e', 'v', 'L':
		return p.refuse(fmt.Sprintf("command '%c' is not supported", cmd.name), sedCommands...)
	}
	return p.errf("unknown command: `%c'", cmd.name)
}

// label reads a label: up to a newline, a semicolon or a blank.
func (p *sedParser) label() string {
	start := p.i
	for !p.eof() && strings.IndexByte("\n; \t", p.s[p.i]) < 0 {
		p.i++
	}
	return p.s[start:p.i]
}

// text reads the text of a, i or c: GNU's one-line form (a text) or the
// classic a\ then lines, a line ending in \ going on to the next.
func (p *sedParser) text() (string, error) {
	p.skipSpace()
	if p.eof() {
		return "", p.errf("expected \\ after `a', `c' or `i'")
	}
	if p.s[p.i] == '\\' {
		p.i++
		if p.peek() == '\n' {
			p.i++
		}
	}
	var b strings.Builder
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		if c == '\n' {
			break
		}
		if c == '\\' && !p.eof() {
			e := p.s[p.i]
			p.i++
			switch e {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(e)
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String() + "\n", nil
}

func (p *sedParser) substitute(cmd *sedCmd) error {
	if p.eof() || p.s[p.i] == '\n' || p.s[p.i] == '\\' {
		return p.errf("unterminated `s' command")
	}
	delim := p.s[p.i]
	p.i++
	pat, ok := p.delimited(delim, true)
	if !ok {
		return p.errf("unterminated `s' command")
	}
	repl, ok := p.delimited(delim, false)
	if !ok {
		return p.errf("unterminated `s' command")
	}
	icase := false
flags:
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == 'g':
			p.i++
			if cmd.global {
				return p.errf("multiple `g' options to `s' command")
			}
			cmd.global = true
		case c == 'p':
			p.i++
			if cmd.print {
				return p.errf("multiple `p' options to `s' command")
			}
			cmd.print = true
		case c == 'i' || c == 'I':
			p.i++
			icase = true
		case c >= '0' && c <= '9':
			if cmd.nth != 0 {
				p.i++
				return p.errf("multiple number options to `s' command")
			}
			n := p.number()
			if n == 0 {
				return p.errf("number option to `s' command may not be zero")
			}
			cmd.nth = int(min(n, 1<<31-1))
		case c == 'm' || c == 'M' || c == 'e' || c == 'w':
			p.i++
			return p.refuse(fmt.Sprintf("the flag '%c' of s is not supported", c), "I", "N", "g", "i", "p")
		default:
			break flags
		}
	}
	if cmd.nth == 0 {
		cmd.nth = 1
	}
	if pat == "" {
		if !p.haveRe {
			return p.noPrevious()
		}
		cmd.emptyRe = true
	} else {
		re, err := p.regex(pat, icase)
		if err != nil {
			return err
		}
		cmd.re = re
		if prefix, complete := re.LiteralPrefix(); complete && !icase && prefix != "" && re.NumSubexp() == 0 && !strings.ContainsRune(prefix, utf8.RuneError) {
			cmd.lit = []byte(prefix)
		}
	}
	parts, err := p.replacement(repl, cmd)
	if err != nil {
		return err
	}
	cmd.repl = parts
	if err := p.endCommand(); err != nil {
		if p.i > 0 && p.s[p.i-1] != ';' {
			return p.errf("unknown option to `s'")
		}
		return err
	}
	p.cmds = append(p.cmds, cmd)
	return nil
}

// replacement parses an s replacement into parts.
func (p *sedParser) replacement(r string, cmd *sedCmd) ([]sedPart, error) {
	var parts []sedPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, sedPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	groups := 0
	if cmd.re != nil {
		groups = cmd.re.NumSubexp()
	}
	for k := 0; k < len(r); k++ {
		c := r[k]
		switch {
		case c == '&':
			flush()
			parts = append(parts, sedPart{group: 0})
		case c == '\\' && k+1 < len(r):
			k++
			e := r[k]
			switch {
			case e >= '0' && e <= '9':
				n := int(e - '0')
				if cmd.re != nil && n > groups {
					return nil, p.errf("invalid reference \\%d on `s' command's RHS", n)
				}
				flush()
				parts = append(parts, sedPart{group: n})
			case e == 'n':
				lit.WriteByte('\n')
			case e == 't':
				lit.WriteByte('\t')
			case e == 'r':
				lit.WriteByte('\r')
			case e == 'f':
				lit.WriteByte('\f')
			case e == 'v':
				lit.WriteByte('\v')
			case e == 'a':
				lit.WriteByte('\a')
			case e == 'U' || e == 'L' || e == 'E' || e == 'u' || e == 'l':
				flush()
				parts = append(parts, sedPart{group: -1, conv: e})
			default:
				lit.WriteByte(e)
			}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}

func (p *sedParser) transliterate(cmd *sedCmd) error {
	if p.eof() || p.s[p.i] == '\n' || p.s[p.i] == '\\' {
		return p.errf("unterminated `y' command")
	}
	delim := p.s[p.i]
	p.i++
	read := func() (string, bool) {
		var b strings.Builder
		for !p.eof() {
			c := p.s[p.i]
			p.i++
			switch {
			case c == delim:
				return b.String(), true
			case c == '\\' && !p.eof():
				e := p.s[p.i]
				p.i++
				switch e {
				case delim:
					b.WriteByte(e)
				case '\\':
					b.WriteByte('\\')
				case 'n', '\n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte('\\')
					b.WriteByte(e)
				}
			default:
				b.WriteByte(c)
			}
		}
		return "", false
	}
	src, ok := read()
	if !ok {
		return p.errf("unterminated `y' command")
	}
	dst, ok := read()
	if !ok {
		return p.errf("unterminated `y' command")
	}
	if len(src) != len(dst) {
		return p.errf("strings for `y' command are different lengths")
	}
	var t [256]byte
	for k := range t {
		t[k] = byte(k)
	}
	for k := 0; k < len(src); k++ {
		t[src[k]] = dst[k]
	}
	cmd.trans = &t
	p.cmds = append(p.cmds, cmd)
	return p.endCommand()
}
