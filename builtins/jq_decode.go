package builtins

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jqMaxDepth is jq 1.6's limit on nesting in its input.
const jqMaxDepth = 256

// jqSource reads JSON values (or lines) from one input, keeping the count
// of lines jq's error locations name.
type jqSource struct {
	name  string
	r     io.Reader
	buf   []byte
	pos   int
	eof   bool
	lines int // newlines in the bytes dropped from buf
	done  bool
}

type jqSyntaxError struct {
	msg       string
	line, col int
	atEOF     bool
}

func (e *jqSyntaxError) Error() string {
	at := ""
	if e.atEOF {
		at = " at EOF"
	}
	return fmt.Sprintf("%s%s at line %d, column %d", e.msg, at, e.line, e.col)
}

// fill reads more input, keeping buf[pos:]; false at the end.
func (s *jqSource) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		s.lines += bytes.Count(s.buf[:s.pos], []byte{'\n'})
		n := copy(s.buf, s.buf[s.pos:])
		s.buf = s.buf[:n]
		s.pos = 0
	}
	if cap(s.buf)-len(s.buf) < 4096 {
		nb := make([]byte, len(s.buf), max(64<<10, 2*cap(s.buf)))
		copy(nb, s.buf)
		s.buf = nb
	}
	for {
		n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if err != nil {
			s.eof = true
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// lineNumber is jq's line of the latest input: the newlines read, the
// one ending the current line included (jq reads its input a line at a
// time). Raw lines have consumed their newline already.
func (s *jqSource) lineNumber(raw bool) int {
	n := s.lines + bytes.Count(s.buf[:s.pos], []byte{'\n'})
	if raw {
		return n
	}
	for off := 0; ; {
		if bytes.IndexByte(s.buf[s.pos+off:], '\n') >= 0 {
			return n + 1
		}
		off = len(s.buf) - s.pos
		if !s.fill() {
			return n
		}
	}
}

func (s *jqSource) syntaxError(msg string, atEOF bool) error {
	line := s.lines + bytes.Count(s.buf[:s.pos], []byte{'\n'}) + 1
	col := s.pos - (bytes.LastIndexByte(s.buf[:s.pos], '\n') + 1)
	return &jqSyntaxError{msg: msg, line: line, col: col, atEOF: atEOF}
}

// peek skips white space and returns the next byte; false at the end.
func (s *jqSource) peek() (byte, bool) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, true
			}
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// value reads the next JSON value; io.EOF when only white space is left.
func (s *jqSource) value() (any, error) {
	if _, ok := s.peek(); !ok {
		return nil, io.EOF
	}
	return s.parse(0)
}

func (s *jqSource) parse(depth int) (any, error) {
	c, ok := s.peek()
	if !ok {
		return nil, s.syntaxError("Unfinished JSON term", true)
	}
	switch c {
	case '{', '[':
		if depth >= jqMaxDepth {
			return nil, s.syntaxError("Exceeds depth limit for parsing", false)
		}
		s.pos++
		if c == '[' {
			return s.array(depth + 1)
		}
		return s.object(depth + 1)
	case '"':
		return s.str()
	case ']', '}', ',', ':':
		s.pos++
		return nil, s.syntaxError(fmt.Sprintf("Unmatched '%c'", c), false)
	}
	return s.literal()
}

func (s *jqSource) array(depth int) (any, error) {
	a := []any{}
	if c, ok := s.peek(); ok && c == ']' {
		s.pos++
		return a, nil
	}
	for {
		v, err := s.parse(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		c, ok := s.peek()
		if !ok {
			return nil, s.syntaxError("Unfinished JSON term", true)
		}
		s.pos++
		switch c {
		case ',':
		case ']':
			return a, nil
		default:
			return nil, s.syntaxError("Expected separator between values", false)
		}
	}
}

func (s *jqSource) object(depth int) (any, error) {
	m := map[string]any{}
	if c, ok := s.peek(); ok && c == '}' {
		s.pos++
		return m, nil
	}
	for {
		c, ok := s.peek()
		if !ok {
			return nil, s.syntaxError("Unfinished JSON term", true)
		}
		if c != '"' {
			return nil, s.syntaxError("Object keys must be strings", false)
		}
		k, err := s.str()
		if err != nil {
			return nil, err
		}
		if c, ok = s.peek(); !ok {
			return nil, s.syntaxError("Unfinished JSON term", true)
		}
		if c != ':' {
			return nil, s.syntaxError("Objects must consist of key:value pairs", false)
		}
		s.pos++
		v, err := s.parse(depth)
		if err != nil {
			return nil, err
		}
		m[k.(string)] = v
		if c, ok = s.peek(); !ok {
			return nil, s.syntaxError("Unfinished JSON term", true)
		}
		s.pos++
		switch c {
		case ',':
		case '}':
			return m, nil
		default:
			return nil, s.syntaxError("Expected separator between values", false)
		}
	}
}

// str reads a string; s.buf[s.pos] is its opening quote.
func (s *jqSource) str() (any, error) {
	off := 1
	escaped := false
	for {
		i := bytes.IndexAny(s.buf[s.pos+off:], "\"\\")
		if i < 0 {
			off = len(s.buf) - s.pos
			if !s.fill() {
				s.pos = len(s.buf)
				return nil, s.syntaxError("Unfinished string", true)
			}
			continue
		}
		off += i
		if s.buf[s.pos+off] == '"' {
			break
		}
		escaped = true
		off += 2
		for s.pos+off > len(s.buf) {
			if !s.fill() {
				s.pos = len(s.buf)
				return nil, s.syntaxError("Unfinished string", true)
			}
		}
	}
	body := s.buf[s.pos+1 : s.pos+off]
	s.pos += off + 1
	if !escaped {
		return jqValidString(body), nil
	}
	return s.unescape(body)
}

func (s *jqSource) unescape(body []byte) (any, error) {
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch body[i] {
		case '"', '\\', '/':
			out = append(out, body[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := jqHex4(body[i+1:])
			if !ok {
				return nil, s.syntaxError("Invalid \\uXXXX escape", false)
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					r2, ok = jqHex4(body[i+3:])
				}
				switch d := utf16.DecodeRune(r, r2); {
				case ok && d != utf8.RuneError:
					r = d
					i += 6
				case r < 0xdc00:
					return nil, s.syntaxError("Invalid \\uXXXX\\uXXXX surrogate pair escape", false)
				default:
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, s.syntaxError("Invalid escape", false)
		}
	}
	return jqValidString(out), nil
}

func jqHex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}

// literal reads true, false, null or a number: a run of bytes up to a
// delimiter, as jq's tokenizer does.
func (s *jqSource) literal() (any, error) {
	off := 0
	for {
		for s.pos+off < len(s.buf) {
			switch s.buf[s.pos+off] {
			case ' ', '\t', '\n', '\r', '[', ']', '{', '}', ',', ':', '"':
				goto end
			}
			off++
		}
		if !s.fill() {
			break
		}
	}
end:
	tok := string(s.buf[s.pos : s.pos+off])
	s.pos += off
	atEOF := s.pos == len(s.buf) && s.eof
	switch tok {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if f, ok := jqNumber(tok); ok {
		return f, nil
	}
	if tok != "" && (tok[0] == '-' || tok[0] == '+' || tok[0] == '.' || tok[0] >= '0' && tok[0] <= '9') {
		return nil, s.syntaxError("Invalid numeric literal", atEOF)
	}
	return nil, s.syntaxError("Invalid literal", atEOF)
}

// jqNumber reads a number as strtod(3) does for jq: a sign, digits with
// an optional point, an optional exponent.
func jqNumber(tok string) (float64, bool) {
	i := 0
	if i < len(tok) && (tok[i] == '-' || tok[i] == '+') {
		i++
	}
	digits := 0
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		digits++
	}
	if i < len(tok) && tok[i] == '.' {
		for i++; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		j := i + 1
		if j < len(tok) && (tok[j] == '-' || tok[j] == '+') {
			j++
		}
		k := j
		for ; k < len(tok) && tok[k] >= '0' && tok[k] <= '9'; k++ {
		}
		if k == j {
			return 0, false
		}
		i = k
	}
	if i != len(tok) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(tok, "+"), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// line reads one line of raw input, without its newline.
func (s *jqSource) line() (any, error) {
	off := 0
	for {
		if i := bytes.IndexByte(s.buf[s.pos+off:], '\n'); i >= 0 {
			l := jqValidString(s.buf[s.pos : s.pos+off+i])
			s.pos += off + i + 1
			return l, nil
		}
		off = len(s.buf) - s.pos
		if !s.fill() {
			if off == 0 {
				return nil, io.EOF
			}
			l := jqValidString(s.buf[s.pos:])
			s.pos = len(s.buf)
			return l, nil
		}
	}
}

// readAll appends the rest of the input to b.
func (s *jqSource) readAll(b *strings.Builder) {
	for {
		b.Write(s.buf[s.pos:])
		s.pos = len(s.buf)
		if !s.fill() {
			return
		}
	}
}
