package shast

import (
	"fmt"
	"strings"
)

// MaxNesting is how deeply a script may nest before it is parsed. mvdan/sh
// parses, walks, prints and runs a script by recursion, and a goroutine
// whose stack outgrows its maximum (1 GB by default, less if the host
// called debug.SetMaxStack) ends the whole process: no recover catches
// it. The costliest level measured (an arithmetic parenthesis or a
// command substitution) takes about 8 KB of stack in one of those passes,
// so 1,000 levels stay under 10 MB, while a script a person or a model
// writes rarely nests more than 20 deep.
const MaxNesting = 1000

// A NestingError is source that nests deeper than [MaxNesting]: where the
// level past it opens, and the message that says so.
type NestingError struct {
	Line, Col int
}

func (e NestingError) Error() string {
	return fmt.Sprintf("the script nests deeper than %d levels (subshells, groups, substitutions, compound commands, chains of operators); split it into functions or smaller scripts", MaxNesting)
}

// CheckNesting measures how deeply src nests, without parsing it, and
// reports where it nests deeper than [MaxNesting]; deep is false when src
// may be handed to the parser. Run, eval and source check it before they
// parse source, and so does every rewrite that parses text of its own.
//
// The measure over-approximates what the parser and the interpreter
// recurse on: every subshell, group, substitution, parameter expansion,
// arithmetic parenthesis, brace expansion, [[ ]], if, case and loop is a
// level while it is open, and so is each operator of a chain (`a | b`,
// `a && b`, `1 + 2`), of a run of `!`, `time` or `f()` prefixes, until
// the list it belongs to ends, since mvdan/sh builds those as a
// tree as deep as the chain is long. A closing word (`fi`, `}`) closes
// a level only where it is a keyword; one in argument position does not.
func CheckNesting(src string) (e NestingError, deep bool) {
	if len(src) <= MaxNesting/2 {
		// No construct opens a level in less than a byte (`((` opens
		// two in two), so a short script cannot nest too deep.
		return NestingError{}, false
	}
	sc := nestScanner{src: src, limit: MaxNesting}
	if !sc.scan() {
		return NestingError{}, false
	}
	line, col := sc.position(sc.at)
	return NestingError{Line: line, Col: col}, true
}

type nestKind uint8

// The kinds come in three runs, one for each grammar the scanner reads:
// code, arithmetic and quoted text.
const (
	nestTop   nestKind = iota // the script itself
	nestParen                 // ( … ), $( … ), <( … ), a=( … ), a pattern group
	nestBack                  // ` … `
	nestGroup                 // { … }
	nestBrace                 // a{b,c}, inside one word
	nestTest                  // [[ … ]]
	nestIf                    // if … fi
	nestCase                  // case … esac
	nestLoop                  // while, until, for, select … done

	nestArith      // (( … )) or $(( … )): two parentheses until one closes alone
	nestArithParen // ( … ) inside arithmetic
	nestParam      // ${ … }

	nestDouble  // " … "
	nestHeredoc // a here-document's body
)

func (k nestKind) isCode() bool   { return k < nestArith }
func (k nestKind) isArith() bool  { return k >= nestArith && k < nestDouble }
func (k nestKind) isQuoted() bool { return k >= nestDouble }

// nestFrame is an open level around the innermost one; ops counts the
// chain operators of its current list, each a level of its own.
type nestFrame struct {
	kind nestKind
	ops  int
}

type nestScanner struct {
	src string
	i   int
	tok int // where the token being scanned starts

	// kind and ops are the innermost level's, as a nestFrame's; stack
	// holds the levels around it, the outermost first.
	kind  nestKind
	ops   int
	stack []nestFrame

	depth int // len(stack) plus every level's ops
	max   int // the deepest depth seen
	limit int
	at    int // where depth first went past limit

	// pending are the delimiters of here-documents whose bodies start at
	// the next newline; delims are those of the open bodies, the
	// innermost last.
	pending []string
	delims  []string

	word      int // where the current word starts
	inWord    bool
	plainWord bool // the current word holds only bytes a keyword can
	// braced says a brace expansion closed inside the current word,
	// `"$(a)"fi}`: a plain one is its bytes but those '}'.
	braced   bool
	closePos bool // a word starting here may close a compound command
	argPos   bool // a command name was seen: words are arguments
}

// push opens a level; it reports whether the scan must stop.
func (sc *nestScanner) push(k nestKind) bool {
	sc.stack = append(sc.stack, nestFrame{kind: sc.kind, ops: sc.ops})
	sc.kind, sc.ops = k, 0
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
	sc.depth -= 1 + sc.ops
	f := sc.stack[len(sc.stack)-1]
	sc.stack = sc.stack[:len(sc.stack)-1]
	sc.kind, sc.ops = f.kind, f.ops
}

func (sc *nestScanner) op() bool {
	sc.ops++
	sc.depth++
	return sc.over()
}

// listEnd ends the current list: its chain no longer nests.
func (sc *nestScanner) listEnd() {
	sc.depth -= sc.ops
	sc.ops = 0
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
	sc.closePos = true
	return sc.run(0)
}

// run scans in the innermost level's grammar, each time it changes, until
// src ends or fewer than base levels are left around the innermost; true
// means the nesting went past the limit.
func (sc *nestScanner) run(base int) bool {
	for sc.i < len(sc.src) && len(sc.stack) >= base {
		var over bool
		switch {
		case sc.kind.isCode():
			over = sc.code()
		case sc.kind.isArith():
			over = sc.arith()
		default:
			over = sc.quoted()
		}
		if over {
			return true
		}
	}
	return false
}

// double scans a double-quoted string that starts at sc.i. Most hold
// nothing that nests: those it scans at once, as push and quoted would.
func (sc *nestScanner) double() bool {
	src := sc.src
	from := sc.i + 1 // where quoted is to take over, if it must
	for j := from; ; j++ {
		j = skip(src, j, &doublePlain)
		if j >= len(src) {
			break // the string does not end: quoted scans all of it
		}
		if c := src[j]; c == '\\' {
			j++
			continue
		} else if c == '"' {
			if sc.depth >= sc.limit {
				break // the push goes past the limit: let it say so
			}
			sc.max = max(sc.max, sc.depth+1)
			sc.i, sc.tok = j+1, j
			return false
		} else if c == '`' || j+1 < len(src) && (src[j+1] == '(' || src[j+1] == '{') {
			from = j
			break
		}
	}
	if sc.push(nestDouble) {
		return true
	}
	sc.i = from
	return sc.quoted()
}

// doublePlain are the bytes double passes over.
var doublePlain = byteSetNot("\\\"$`")

// inner scans what code just opened when it is not code: a shortcut
// past run, which would come to the same.
func (sc *nestScanner) inner() bool {
	switch {
	case sc.kind.isArith():
		return sc.arith()
	case sc.kind.isQuoted():
		return sc.quoted()
	}
	return false
}

// quoted scans a double-quoted string or a here-document body, where only
// expansions nest, until the innermost level is no longer one of them.
func (sc *nestScanner) quoted() bool {
	for sc.i < len(sc.src) && sc.kind.isQuoted() {
		sc.tok = sc.i
		switch sc.src[sc.i] {
		case '\\':
			sc.i += 2
		case '"':
			sc.i++
			if sc.kind == nestDouble {
				sc.pop()
			}
		case '\n':
			sc.i++
			if sc.kind == nestHeredoc && sc.delimiterLine(sc.delims[len(sc.delims)-1]) {
				sc.delims = sc.delims[:len(sc.delims)-1]
				sc.pop()
			}
		case '$':
			if c := sc.peek(1); c == '(' || c == '{' {
				if sc.expansion() {
					return true
				}
				continue
			}
			// `$x`: the '$' is a plain byte in quotes.
			sc.i = skip(sc.src, sc.i+1, &quotedPlain)
			sc.tok = sc.i - 1 // the last byte's, as if each had been a token
		case '`':
			if sc.expansion() {
				return true
			}
		default:
			sc.i = skip(sc.src, sc.i+1, &quotedPlain)
			sc.tok = sc.i - 1
		}
	}
	return false
}

// quotedPlain are the bytes quoted has no case for.
var quotedPlain = byteSetNot("\\\"\n$`")

// expansion opens what starts at a '$' or a '`'; anything else is one
// plain byte.
func (sc *nestScanner) expansion() bool {
	if sc.src[sc.i] == '`' {
		sc.i++
		if sc.kind == nestBack {
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
		if sc.kind != nestDouble && sc.kind != nestHeredoc {
			sc.i += 2
			sc.skipEscapedSingle()
			return false
		}
	case '"':
		if sc.kind != nestDouble && sc.kind != nestHeredoc {
			sc.i += 2
			return sc.push(nestDouble)
		}
	}
	sc.i++
	return false
}

// skipSingle skips a single-quoted string whose opening quote is behind.
func (sc *nestScanner) skipSingle() {
	end := strings.IndexByte(sc.src[sc.i:], '\'')
	if end < 0 {
		sc.i = len(sc.src)
		return
	}
	sc.i += end + 1
}

// skipEscapedSingle skips a $'…' string whose opening quote is behind,
// where backslashes escape.
func (sc *nestScanner) skipEscapedSingle() {
	for sc.i < len(sc.src) {
		c := sc.src[sc.i]
		sc.i++
		if c == '\\' {
			sc.i++
		} else if c == '\'' {
			return
		}
	}
}

// arith scans arithmetic or a parameter expansion, where every operator
// makes the expression one level deeper, until the innermost level is no
// longer one of them.
func (sc *nestScanner) arith() bool {
	for sc.i < len(sc.src) && sc.kind.isArith() {
		sc.tok = sc.i
		switch arithByte[sc.src[sc.i]] {
		case arithBackslash:
			sc.i += 2
		case arithSingle:
			sc.i++
			sc.skipSingle()
		case arithDouble:
			sc.i++
			return sc.push(nestDouble)
		case arithDollar:
			if sc.expansion() {
				return true
			}
		case arithOpen:
			sc.i++
			if sc.kind != nestParam && sc.push(nestArithParen) {
				return true
			}
		case arithClose:
			sc.i++
			switch sc.kind {
			case nestArithParen:
				sc.pop()
			case nestArith:
				// (( … )) holds two levels: `))` closes both, a lone `)`
				// shows they were two parentheses, `((a) )`.
				sc.pop()
				if sc.kind == nestArith {
					if sc.peek(0) == ')' {
						sc.i++
						sc.pop()
					} else {
						sc.kind = nestParen
					}
				}
				sc.afterClose()
			}
		case arithBraceClose:
			sc.i++
			if sc.kind == nestParam {
				sc.pop()
			}
		case arithOp:
			// A run of operator bytes is one operator at most.
			sc.i = skip(sc.src, sc.i+1, &arithOperator)
			if sc.op() {
				return true
			}
		default:
			sc.i = skip(sc.src, sc.i+1, &arithPlain)
			sc.tok = sc.i - 1
		}
	}
	return false
}

// The cases of arith's switch, and which bytes come under each.
const (
	arithOther uint8 = iota
	arithBackslash
	arithSingle
	arithDouble
	arithDollar
	arithOpen
	arithClose
	arithBraceClose
	arithOp
)

var arithByte = byteCases([]string{
	arithBackslash: "\\", arithSingle: "'", arithDouble: "\"", arithDollar: "$`",
	arithOpen: "(", arithClose: ")", arithBraceClose: "}", arithOp: "+-*/%<>=!~&|^,?:[@#",
})

// arithOperator are the bytes of arithmetic operators, and arithPlain
// the bytes arith has no case for.
var (
	arithOperator = byteSet("+-*/%<>=!~&|^,?:[@#")
	arithPlain    = byteSetNot("\\'\"$`()}+-*/%<>=!~&|^,?:[@#")
)

// afterClose is the state after a closing parenthesis in code: no word
// follows it but a keyword (`fi`, `done`) or a case item's command.
func (sc *nestScanner) afterClose() {
	sc.endWord()
	sc.closePos, sc.argPos = true, false
}

// The cases of code's switch, and which bytes come under each: the
// others are the bytes of words.
const (
	codeWord uint8 = iota
	codeBlank
	codeNewline
	codeHash
	codeBackslash
	codeSingle
	codeDouble
	codeDollar
	codeOpen
	codeClose
	codeBraceOpen
	codeBraceClose
	codeOperator
	codeRedirect
)

// What a byte is to a word in code: one code has a case for ends it.
const (
	wordOther uint8 = iota
	wordSpecial
	wordKeyword // a byte a keyword is made of
)

var wordByte = byteCases([]string{
	wordSpecial: " \t\r\n#\\'\"$`(){};&|<>",
	wordKeyword: "abcdefghijklmnopqrstuvwxyz[]!",
})

var codeByte = byteCases([]string{
	codeBlank: " \t\r", codeNewline: "\n", codeHash: "#", codeBackslash: "\\",
	codeSingle: "'", codeDouble: "\"", codeDollar: "$`", codeOpen: "(", codeClose: ")",
	codeBraceOpen: "{", codeBraceClose: "}", codeOperator: ";&|", codeRedirect: "<>",
})

// code scans shell code until the innermost level is no longer code.
func (sc *nestScanner) code() bool {
	src := sc.src
	for sc.kind.isCode() && uint(sc.i) < uint(len(src)) {
		c := src[sc.i]
		sc.tok = sc.i
		switch codeByte[c] {
		case codeBlank:
			if sc.boundary() {
				return true
			}
			sc.i = skip(sc.src, sc.i+1, &blank)
			sc.tok = sc.i - 1
			continue
		case codeNewline:
			if sc.boundary() {
				return true
			}
			sc.i++
			if len(sc.pending) > 0 {
				if sc.heredocs() {
					return true
				}
				continue
			}
			if sc.ops > 0 && !sc.afterOp() {
				sc.listEnd()
			}
			sc.closePos, sc.argPos = true, false
			continue
		case codeHash:
			if !sc.inWord {
				if end := strings.IndexByte(sc.src[sc.i:], '\n'); end >= 0 {
					sc.i += end
				} else {
					sc.i = len(sc.src)
				}
				continue
			}
		case codeBackslash:
			sc.notKeyword()
			sc.i += 2
			continue
		case codeSingle:
			sc.notKeyword()
			sc.i++
			sc.skipSingle()
			continue
		case codeDouble:
			sc.notKeyword()
			if sc.double() {
				return true
			}
			continue
		case codeDollar:
			if c == '`' && sc.kind == nestBack {
				if sc.boundary() {
					return true
				}
			} else {
				sc.notKeyword()
			}
			if sc.expansion() || sc.inner() {
				return true
			}
			continue
		case codeOpen:
			if sc.boundary() {
				return true
			}
			sc.closePos, sc.argPos = true, false
			if sc.peek(1) == ')' {
				// f() or a run of them: FuncDecl nests in FuncDecl.
				sc.i += 2
				if sc.op() {
					return true
				}
				continue
			}
			sc.i++
			if sc.peek(0) == '(' {
				sc.i++
				if sc.pushArith() || sc.arith() {
					return true
				}
				continue
			}
			if sc.push(nestParen) {
				return true
			}
			continue
		case codeClose:
			if sc.boundary() {
				return true
			}
			sc.i++
			if sc.kind == nestParen {
				sc.pop()
			}
			sc.afterClose()
			continue
		case codeBraceOpen:
			if sc.inWord || !sc.standalone(1) {
				sc.notKeyword()
				sc.i++
				if sc.push(nestBrace) {
					return true
				}
				continue
			}
			sc.i++
			if !sc.argPos {
				sc.closePos = true
				if sc.push(nestGroup) {
					return true
				}
			}
			continue
		case codeBraceClose:
			if sc.kind == nestBrace {
				if sc.inWord {
					sc.braced = true
				}
				sc.i++
				sc.pop()
				continue
			}
			if !sc.inWord && sc.standalone(1) && sc.closePos && sc.kind == nestGroup {
				sc.i++
				sc.pop()
				sc.closePos, sc.argPos = true, false
				continue
			}
		case codeOperator:
			if sc.operator(c) {
				return true
			}
			continue
		case codeRedirect:
			if sc.peek(1) == '(' {
				// Past the limit or not, the push below tells.
				sc.boundary()
				sc.i += 2
				sc.closePos, sc.argPos = true, false
				if sc.push(nestParen) {
					return true
				}
				continue
			}
			if sc.kind != nestTest {
				if sc.boundary() {
					return true
				}
				if c == '<' && sc.peek(1) == '<' && sc.peek(2) != '<' {
					sc.i += 2
					sc.heredocStart()
					continue
				}
				// A redirection: what follows is its word, not a command.
				sc.i = skip(sc.src, sc.i, &redirection)
				continue
			}
		}
		// A byte of a word, and the rest of the word's ordinary bytes at
		// once.
		if !sc.inWord {
			sc.inWord, sc.plainWord, sc.braced = true, true, false
			sc.word = sc.i
		}
		plain := sc.plainWord && wordByte[c] == wordKeyword
		i := sc.i + 1
		for ; uint(i) < uint(len(src)); i++ {
			b := wordByte[src[i]]
			if b == wordSpecial {
				break
			}
			plain = plain && b == wordKeyword
		}
		sc.i, sc.plainWord = i, plain
	}
	return false
}

var (
	blank = byteSet(" \t\r")
	// endsWord are the bytes that end a word, and 0 for the end of src.
	endsWord    = byteSet(" \t\r\n;&|()<>\x00")
	redirection = byteSet("<>&|")
)

func byteSet(s string) (set [256]bool) {
	for i := range len(s) {
		set[s[i]] = true
	}
	return set
}

// byteCases maps each byte of cases[n] to n, and the others to 0.
func byteCases(cases []string) (t [256]uint8) {
	for n, s := range cases {
		for i := range len(s) {
			t[s[i]] = uint8(n)
		}
	}
	return t
}

func byteSetNot(s string) (set [256]bool) {
	for i := range set {
		set[i] = true
	}
	for i := range len(s) {
		set[s[i]] = false
	}
	return set
}

// skip is the index of the first byte of src from i on that is not in
// set, or len(src).
func skip(src string, i int, set *[256]bool) int {
	// As a uint, i needs no bounds check on src.
	for uint(i) < uint(len(src)) && set[src[i]] {
		i++
	}
	return i
}

// standalone reports whether the byte n ahead ends a word.
func (sc *nestScanner) standalone(n int) bool {
	return endsWord[sc.peek(n)]
}

// notKeyword makes the current word, or one starting here, one that
// cannot be a keyword.
func (sc *nestScanner) notKeyword() {
	sc.inWord, sc.plainWord = true, false
}

// endWord drops the brace expansions of the word that ended.
func (sc *nestScanner) endWord() {
	for sc.kind == nestBrace {
		sc.pop()
	}
	sc.inWord = false
}

// boundary ends the current word at sc.i, judging it as a keyword; it
// reports whether the scan must stop.
func (sc *nestScanner) boundary() bool {
	return sc.inWord && sc.wordEnd()
}

// wordEnd is boundary for a word that there is.
func (sc *nestScanner) wordEnd() bool {
	if !sc.plainWord {
		sc.endWord()
		sc.argument()
		return false
	}
	w := sc.src[sc.word:sc.i]
	if sc.braced {
		w = strings.ReplaceAll(w, "}", "")
	}
	sc.endWord()
	return sc.keyword(w)
}

// argument follows a word that is no keyword: the words after it are
// arguments.
func (sc *nestScanner) argument() {
	sc.closePos, sc.argPos = false, true
}

// keyword judges a word made of lower-case letters, brackets and '!'.
func (sc *nestScanner) keyword(w string) bool {
	if sc.closePos {
		switch w {
		case "fi", "esac", "done", "]]":
			if sc.kind == closedBy(w) {
				sc.pop()
				sc.closePos, sc.argPos = true, false
				return false
			}
		}
	}
	if sc.kind == nestTest && w == "]]" {
		sc.pop()
		sc.closePos, sc.argPos = true, false
		return false
	}
	if sc.argPos {
		sc.argument()
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
		if sc.kind == nestLoop {
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
	sc.argument()
	return false
}

// closedBy is the kind of level a closing keyword closes.
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
	src := sc.src
	j := sc.i - 2 // before the newline
	for j >= 0 && blank[src[j]] {
		j--
	}
	if j < 0 {
		return false
	}
	switch src[j] {
	case '|':
		return true
	case '&':
		return j > 0 && src[j-1] == '&'
	}
	return false
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
	for _, delim := range pending {
		if sc.delimiterLine(delim) {
			continue
		}
		if sc.push(nestHeredoc) {
			return true
		}
		sc.delims = append(sc.delims, delim)
		if sc.run(len(sc.stack)) {
			return true
		}
	}
	sc.closePos, sc.argPos = true, false
	return false
}

// delimiterLine consumes the line at sc.i when it is delim, which is not
// empty.
func (sc *nestScanner) delimiterLine(delim string) bool {
	j := sc.i
	for j < len(sc.src) && blank[sc.src[j]] {
		j++
	}
	if j == len(sc.src) || sc.src[j] != delim[0] {
		return false // the common case, told without finding the line's end
	}
	line, _, _ := strings.Cut(sc.src[sc.i:], "\n")
	if strings.Trim(line, " \t\r") != delim {
		return false
	}
	sc.i += len(line)
	if sc.i < len(sc.src) {
		sc.i++
	}
	return true
}
