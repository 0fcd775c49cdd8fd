package kernel

import (
	"fmt"
	"strings"
)

// maxNesting is how deeply a script may nest before it is parsed. mvdan/sh
// parses, walks, prints and runs a script by recursion, and a goroutine
// whose stack outgrows its maximum (1 GB by default, less if the host
// called debug.SetMaxStack) ends the whole process: no recover catches
// it. The costliest level measured (an arithmetic parenthesis or a
// command substitution) takes about 8 KB of stack in one of those passes,
// so 1,000 levels stay under 10 MB, while a script a person or a model
// writes rarely nests more than 20 deep.
const maxNesting = 1000

// nestingRefusal measures how deeply src nests, without parsing it, and
// refuses it when it nests deeper than [maxNesting]. Run, eval and source
// call it before they hand source to the parser.
//
// The measure over-approximates what the parser and the interpreter
// recurse on: every subshell, group, substitution, parameter expansion,
// arithmetic parenthesis, brace expansion, [[ ]], if, case and loop is a
// level while it is open, and so is each operator of a chain (`a | b`,
// `a && b`, `1 + 2`), of a run of `!`, `time` or `f()` prefixes, until
// the list it belongs to ends, since mvdan/sh builds those as a
// tree as deep as the chain is long. A closing word (`fi`, `}`) closes
// a level only where it is a keyword; one in argument position does not.
func nestingRefusal(src string) (Issue, bool) {
	if len(src) <= maxNesting/2 {
		// No construct opens a level in less than a byte (`((` opens
		// two in two), so a short script cannot nest too deep.
		return Issue{}, false
	}
	sc := nestScanner{src: src, limit: maxNesting}
	if !sc.scan() {
		return Issue{}, false
	}
	line, col := sc.position(sc.at)
	return Issue{Severity: SeverityError, Code: CodeUnsupported, Line: line, Col: col,
		Message: fmt.Sprintf("the script nests deeper than %d levels (subshells, groups, substitutions, compound commands, chains of operators); split it into functions or smaller scripts", maxNesting)}, true
}

type nestKind uint8

const (
	nestTop        nestKind = iota // the script itself
	nestParen                      // ( … ), $( … ), <( … ), a=( … ), a pattern group
	nestArith                      // (( … )) or $(( … )): two parentheses until one closes alone
	nestArithParen                 // ( … ) inside arithmetic
	nestParam                      // ${ … }
	nestDouble                     // " … "
	nestHeredoc                    // a here-document's body
	nestBack                       // ` … `
	nestGroup                      // { … }
	nestBrace                      // a{b,c}, inside one word
	nestTest                       // [[ … ]]
	nestIf                         // if … fi
	nestCase                       // case … esac
	nestLoop                       // while, until, for, select … done
)

// nestFrame is one open level; ops counts the chain operators of its
// current list, each a level of its own.
type nestFrame struct {
	kind  nestKind
	ops   int
	delim string // a here-document's delimiter
}

type nestScanner struct {
	src   string
	i     int
	stack []nestFrame
	depth int // len(stack) - 1 plus every frame's ops
	max   int // the deepest depth seen
	limit int
	at    int // where depth first went past limit
	tok   int // where the byte being scanned starts

	// pending are the delimiters of here-documents whose bodies start at
	// the next newline.
	pending []string

	word      strings.Builder // the current word, when it may be a keyword
	inWord    bool
	plainWord bool // the current word holds only characters a keyword can
	closePos  bool // a word starting here may close a compound command
	argPos    bool // a command name was seen: words are arguments
}

func (sc *nestScanner) top() *nestFrame { return &sc.stack[len(sc.stack)-1] }

// push opens a level; it reports whether the scan must stop.
func (sc *nestScanner) push(k nestKind) bool {
	sc.stack = append(sc.stack, nestFrame{kind: k})
	sc.depth++
	return sc.over()
}

// pushArith opens an arithmetic expression: two levels, as `((` nests
// two in the parser.
func (sc *nestScanner) pushArith() bool {
	if sc.push(nestArith) {
		return true
	}
	return sc.push(nestArith)
}

func (sc *nestScanner) pop() {
	f := sc.top()
	sc.depth -= 1 + f.ops
	sc.stack = sc.stack[:len(sc.stack)-1]
}

func (sc *nestScanner) op() bool {
	sc.top().ops++
	sc.depth++
	return sc.over()
}

// listEnd ends the current list: its chain no longer nests.
func (sc *nestScanner) listEnd() {
	f := sc.top()
	sc.depth -= f.ops
	f.ops = 0
}

func (sc *nestScanner) over() bool {
	sc.max = max(sc.max, sc.depth)
	if sc.depth > sc.limit {
		sc.at = sc.tok
		return true
	}
	return false
}

func (sc *nestScanner) position(off int) (line, col int) {
	if off > len(sc.src) {
		off = len(sc.src)
	}
	line = 1 + strings.Count(sc.src[:off], "\n")
	col = 1 + off - (strings.LastIndexByte(sc.src[:off], '\n') + 1)
	return line, col
}

func (sc *nestScanner) peek(n int) byte {
	if sc.i+n < len(sc.src) {
		return sc.src[sc.i+n]
	}
	return 0
}

// scan reports whether src nests deeper than sc.limit.
func (sc *nestScanner) scan() bool {
	sc.stack = append(sc.stack, nestFrame{kind: nestTop})
	sc.closePos = true
	for sc.i < len(sc.src) {
		if sc.step() {
			return true
		}
	}
	return false
}

// step scans one token in the innermost frame's grammar; true means the
// nesting went past the limit.
func (sc *nestScanner) step() bool {
	sc.tok = sc.i
	switch sc.top().kind {
	case nestDouble, nestHeredoc:
		return sc.quoted()
	case nestArith, nestArithParen, nestParam:
		return sc.arith()
	}
	return sc.code()
}

// quoted scans one byte of a double-quoted string or a here-document
// body, where only expansions nest.
func (sc *nestScanner) quoted() bool {
	c := sc.src[sc.i]
	switch {
	case c == '\\':
		sc.i += 2
		return false
	case c == '"' && sc.top().kind == nestDouble:
		sc.pop()
		sc.i++
		return false
	case c == '\n' && sc.top().kind == nestHeredoc:
		sc.i++
		if sc.delimiterLine(sc.top().delim) {
			sc.pop()
		}
		return false
	case c == '$' || c == '`':
		return sc.expansion()
	}
	// The plain bytes that follow, at once: each would come back here to
	// this same end.
	sc.i++
	for sc.i < len(sc.src) && !quotedSpecial[sc.src[sc.i]] {
		sc.i++
	}
	sc.tok = sc.i - 1 // the last byte's, as if each had been a step
	return false
}

// quotedSpecial are the bytes quoted has a case for.
var quotedSpecial = [256]bool{'\\': true, '"': true, '\n': true, '$': true, '`': true}

// expansion opens what starts at a '$' or a '`'; anything else is one
// plain byte.
func (sc *nestScanner) expansion() bool {
	c := sc.src[sc.i]
	if c == '`' {
		sc.i++
		if sc.top().kind == nestBack {
			sc.pop()
			return false
		}
		sc.closePos, sc.argPos = true, false
		return sc.push(nestBack)
	}
	switch sc.peek(1) {
	case '(':
		if sc.peek(2) == '(' {
			sc.i += 3
			return sc.pushArith()
		}
		sc.i += 2
		sc.closePos, sc.argPos = true, false
		return sc.push(nestParen)
	case '{':
		sc.i += 2
		return sc.push(nestParam)
	case '\'':
		if k := sc.top().kind; k != nestDouble && k != nestHeredoc {
			sc.i += 2
			sc.skipSingle(true)
			return false
		}
	case '"':
		if k := sc.top().kind; k != nestDouble && k != nestHeredoc {
			sc.i += 2
			return sc.push(nestDouble)
		}
	}
	sc.i++
	return false
}

// skipSingle skips a single-quoted string whose opening quote is behind;
// escapes says whether backslashes escape (as in $'…').
func (sc *nestScanner) skipSingle(escapes bool) {
	for sc.i < len(sc.src) {
		c := sc.src[sc.i]
		sc.i++
		if c == '\\' && escapes {
			sc.i++
		} else if c == '\'' {
			return
		}
	}
}

// arith scans one byte inside arithmetic or a parameter expansion, where
// every operator makes the expression one level deeper.
func (sc *nestScanner) arith() bool {
	c := sc.src[sc.i]
	f := sc.top()
	switch c {
	case '\\':
		sc.i += 2
	case '\'':
		sc.i++
		sc.skipSingle(false)
	case '"':
		sc.i++
		return sc.push(nestDouble)
	case '$', '`':
		return sc.expansion()
	case '(':
		sc.i++
		if f.kind == nestParam {
			return false
		}
		return sc.push(nestArithParen)
	case ')':
		sc.i++
		switch f.kind {
		case nestArithParen:
			sc.pop()
		case nestArith:
			// (( … )) holds two levels: `))` closes both, a lone `)`
			// shows they were two parentheses, `((a) )`.
			sc.pop()
			if sc.top().kind == nestArith {
				if sc.peek(0) == ')' {
					sc.i++
					sc.pop()
				} else {
					sc.top().kind = nestParen
				}
			}
			sc.afterClose()
		}
	case '}':
		sc.i++
		if f.kind == nestParam {
			sc.pop()
		}
	case '+', '-', '*', '/', '%', '<', '>', '=', '!', '~', '&', '|', '^', ',', '?', ':', '[', '@', '#':
		// A run of operator bytes is one operator at most.
		for sc.i < len(sc.src) && strings.IndexByte("+-*/%<>=!~&|^,?:[@#", sc.src[sc.i]) >= 0 {
			sc.i++
		}
		return sc.op()
	default:
		// The bytes that follow and have no case either, at once.
		sc.i++
		for sc.i < len(sc.src) && !arithSpecial[sc.src[sc.i]] {
			sc.i++
		}
		sc.tok = sc.i - 1
	}
	return false
}

// arithSpecial are the bytes arith has a case for.
var arithSpecial = func() (special [256]bool) {
	for _, c := range []byte("\\'\"$`()}+-*/%<>=!~&|^,?:[@#") {
		special[c] = true
	}
	return special
}()

// afterClose is the state after a closing parenthesis in code: no word
// follows it but a keyword (`fi`, `done`) or a case item's command.
func (sc *nestScanner) afterClose() {
	sc.endWord()
	sc.closePos, sc.argPos = true, false
}

// code scans one byte of shell code.
func (sc *nestScanner) code() bool {
	c := sc.src[sc.i]
	switch c {
	case ' ', '\t', '\r':
		sc.i++
		return sc.boundary()
	case '\n':
		sc.i++
		if sc.boundary() {
			return true
		}
		if len(sc.pending) > 0 {
			return sc.heredocs()
		}
		if !sc.afterOp() {
			sc.listEnd()
		}
		sc.closePos, sc.argPos = true, false
		return false
	case '#':
		if !sc.inWord {
			for sc.i < len(sc.src) && sc.src[sc.i] != '\n' {
				sc.i++
			}
			return false
		}
	case '\\':
		sc.startWord(false)
		sc.i += 2
		return false
	case '\'':
		sc.startWord(false)
		sc.i++
		sc.skipSingle(false)
		return false
	case '"':
		sc.startWord(false)
		sc.i++
		return sc.push(nestDouble)
	case '$', '`':
		if c == '`' && sc.top().kind == nestBack {
			if sc.boundary() {
				return true
			}
		} else {
			sc.startWord(false)
		}
		return sc.expansion()
	case '(':
		if sc.boundary() {
			return true
		}
		if sc.peek(1) == ')' {
			// f() or a run of them: FuncDecl nests in FuncDecl.
			sc.i += 2
			sc.closePos, sc.argPos = true, false
			return sc.op()
		}
		sc.i++
		sc.closePos, sc.argPos = true, false
		if sc.peek(0) == '(' {
			sc.i++
			return sc.pushArith()
		}
		return sc.push(nestParen)
	case ')':
		if sc.boundary() {
			return true
		}
		sc.i++
		if sc.top().kind == nestParen {
			sc.pop()
		}
		sc.afterClose()
		return false
	case '{':
		if sc.inWord || !sc.standalone(1) {
			sc.startWord(false)
			sc.i++
			return sc.push(nestBrace)
		}
		sc.i++
		if sc.argPos {
			return false
		}
		sc.closePos = true
		return sc.push(nestGroup)
	case '}':
		if sc.top().kind == nestBrace {
			sc.i++
			sc.pop()
			return false
		}
		if !sc.inWord && sc.standalone(1) && sc.closePos && sc.top().kind == nestGroup {
			sc.i++
			sc.pop()
			sc.closePos, sc.argPos = true, false
			return false
		}
	case ';', '&', '|':
		return sc.operator(c)
	case '<', '>':
		if sc.peek(1) == '(' {
			sc.boundary()
			sc.i += 2
			sc.closePos, sc.argPos = true, false
			return sc.push(nestParen)
		}
		if c == '<' && sc.peek(1) == '<' && sc.peek(2) != '<' && sc.top().kind != nestTest {
			if sc.boundary() {
				return true
			}
			sc.i += 2
			sc.heredocStart()
			return false
		}
		if sc.top().kind != nestTest {
			// A redirection: what follows is its word, not a command.
			if sc.boundary() {
				return true
			}
			for sc.i < len(sc.src) && strings.IndexByte("<>&|", sc.src[sc.i]) >= 0 {
				sc.i++
			}
			return false
		}
	}
	sc.startWord(isKeywordByte(c))
	if sc.plainWord {
		sc.word.WriteByte(c)
	}
	sc.i++
	// The rest of a word's ordinary bytes, at once: each would come back
	// here, to this same end, one step at a time.
	for sc.i < len(sc.src) && !codeSpecial[sc.src[sc.i]] {
		if c := sc.src[sc.i]; sc.plainWord {
			if isKeywordByte(c) {
				sc.word.WriteByte(c)
			} else {
				sc.plainWord = false
			}
		}
		sc.i++
	}
	return false
}

// codeSpecial are the bytes code has a case for; any other byte goes to
// its end, the byte of a word.
var codeSpecial = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, '#': true, '\\': true, '\'': true, '"': true,
	'$': true, '`': true, '(': true, ')': true, '{': true, '}': true, ';': true, '&': true, '|': true, '<': true, '>': true}

// standalone reports whether the byte n ahead ends a word.
func (sc *nestScanner) standalone(n int) bool {
	c := sc.peek(n)
	return c == 0 || strings.IndexByte(" \t\r\n;&|()<>", c) >= 0
}

func isKeywordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c == '[' || c == ']' || c == '!'
}

func (sc *nestScanner) startWord(plain bool) {
	if !sc.inWord {
		sc.inWord, sc.plainWord = true, plain
		sc.word.Reset()
		return
	}
	if !plain {
		sc.plainWord = false
	}
}

// endWord drops the brace expansions of the word that ended.
func (sc *nestScanner) endWord() {
	for sc.top().kind == nestBrace {
		sc.pop()
	}
	sc.inWord = false
}

// boundary ends the current word, judging it as a keyword; it reports
// whether the scan must stop.
func (sc *nestScanner) boundary() bool {
	if !sc.inWord {
		return false
	}
	plain, w := sc.plainWord, sc.word.String()
	sc.endWord()
	if !plain {
		sc.wordDone(w, false)
		return false
	}
	return sc.keyword(w)
}

func (sc *nestScanner) wordDone(w string, keyword bool) {
	switch {
	case keyword:
	case strings.Contains(w, "="):
		// An assignment: a command name may follow. A keyword there is
		// not one to bash, but openers count all the same.
		sc.closePos = false
	default:
		sc.closePos, sc.argPos = false, true
	}
}

// keyword judges a word made of lower-case letters, brackets and '!'.
func (sc *nestScanner) keyword(w string) bool {
	f := sc.top()
	if sc.closePos {
		switch w {
		case "fi", "esac", "done", "]]":
			if f.kind == closedBy(w) {
				sc.pop()
				sc.closePos, sc.argPos = true, false
				return false
			}
		}
	}
	if f.kind == nestTest && w == "]]" {
		sc.pop()
		sc.closePos, sc.argPos = true, false
		return false
	}
	if sc.argPos {
		sc.wordDone(w, false)
		return false
	}
	switch w {
	case "if":
		sc.closePos = true
		return sc.push(nestIf)
	case "case":
		sc.closePos, sc.argPos = false, true // the subject and `in` follow
		return sc.push(nestCase)
	case "while", "until", "for", "select":
		sc.closePos = true
		return sc.push(nestLoop)
	case "do":
		sc.closePos = true
		if f.kind == nestLoop {
			return false
		}
		return sc.push(nestLoop)
	case "[[":
		sc.closePos = false
		return sc.push(nestTest)
	case "then", "else", "elif":
		sc.closePos = true
		return false
	case "!", "time", "coproc", "function":
		sc.closePos = true
		return sc.op()
	}
	sc.wordDone(w, false)
	return false
}

// closedBy is the kind of frame a closing keyword closes.
func closedBy(w string) nestKind {
	switch w {
	case "fi":
		return nestIf
	case "esac":
		return nestCase
	case "done":
		return nestLoop
	}
	return nestTest
}

// afterOp reports whether the last thing scanned was a chain operator,
// after which a newline does not end the list.
func (sc *nestScanner) afterOp() bool {
	j := sc.i - 2 // before the newline
	for j >= 0 && (sc.src[j] == ' ' || sc.src[j] == '\t' || sc.src[j] == '\r') {
		j--
	}
	return j >= 0 && (sc.src[j] == '|' || sc.src[j] == '&' && j > 0 && sc.src[j-1] == '&')
}

// operator scans ';', '&' and '|' and what they start.
func (sc *nestScanner) operator(c byte) bool {
	if sc.boundary() {
		return true
	}
	next := sc.peek(1)
	sc.closePos, sc.argPos = true, false
	switch {
	case c == '&' && next == '&', c == '|' && next == '|':
		sc.i += 2
		return sc.op()
	case c == '|':
		sc.i++
		if next == '&' {
			sc.i++
		}
		return sc.op()
	case c == '&' && next == '>':
		sc.i += 2 // a redirection
		sc.closePos = false
		return false
	}
	// ';', ';;', ';&', ';;&', '&': the list ends.
	sc.i++
	for sc.i < len(sc.src) && (sc.src[sc.i] == ';' || sc.src[sc.i] == '&') {
		sc.i++
	}
	sc.listEnd()
	return false
}

// heredocStart reads a here-document's delimiter after `<<` or `<<-`. A
// delimiter with expansions in it is not one this scanner can match, so
// its body is scanned as code: that only counts more.
func (sc *nestScanner) heredocStart() {
	if sc.peek(0) == '-' {
		sc.i++
	}
	for sc.i < len(sc.src) && (sc.src[sc.i] == ' ' || sc.src[sc.i] == '\t') {
		sc.i++
	}
	var delim strings.Builder
	ok := true
	for sc.i < len(sc.src) && !sc.standalone(0) {
		c := sc.src[sc.i]
		sc.i++
		switch c {
		case '\'', '"':
			end := strings.IndexByte(sc.src[sc.i:], c)
			if end < 0 {
				return
			}
			delim.WriteString(sc.src[sc.i : sc.i+end])
			sc.i += end + 1
		case '\\':
			if sc.i < len(sc.src) {
				delim.WriteByte(sc.src[sc.i])
				sc.i++
			}
		case '$', '`':
			ok = false
		default:
			delim.WriteByte(c)
		}
	}
	if ok && delim.Len() > 0 && !strings.ContainsAny(delim.String(), "\n") {
		sc.pending = append(sc.pending, delim.String())
	}
	sc.closePos = false
}

// heredocs scans the bodies that start after a newline, one after the
// other. A body ends at a line that is its delimiter, leading tabs and
// trailing blanks aside: ending earlier than the parser does only scans
// more as code.
func (sc *nestScanner) heredocs() bool {
	pending := sc.pending
	sc.pending = nil
	for len(pending) > 0 {
		delim := pending[0]
		pending = pending[1:]
		if sc.delimiterLine(delim) {
			continue
		}
		if sc.push(nestHeredoc) {
			return true
		}
		sc.top().delim = delim
		base := len(sc.stack) - 1
		for sc.i < len(sc.src) && len(sc.stack) > base {
			if sc.step() {
				return true
			}
		}
	}
	sc.closePos, sc.argPos = true, false
	return false
}

// delimiterLine consumes the line at sc.i when it is delim.
func (sc *nestScanner) delimiterLine(delim string) bool {
	rest := sc.src[sc.i:]
	line, _, _ := strings.Cut(rest, "\n")
	if strings.Trim(line, " \t\r") != delim {
		return false
	}
	sc.i += len(line)
	if sc.i < len(sc.src) {
		sc.i++
	}
	return true
}
