package kernel

// This file is the nesting scanner as it was before its byte loops
// were made cheaper (nesting.go): TestNestingAsBefore and
// FuzzNestingAsBefore hold the two to the same measures.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// oldNestingRefusal measures how deeply src nests, without parsing it, and
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
func oldNestingRefusal(src string) (Issue, bool) {
	if len(src) <= maxNesting/2 {
		// No construct opens a level in less than a byte (`((` opens
		// two in two), so a short script cannot nest too deep.
		return Issue{}, false
	}
	sc := oldNestScanner{src: src, limit: maxNesting}
	if !sc.scan() {
		return Issue{}, false
	}
	line, col := sc.position(sc.at)
	return Issue{Severity: SeverityError, Code: CodeUnsupported, Line: line, Col: col,
		Message: fmt.Sprintf("the script nests deeper than %d levels (subshells, groups, substitutions, compound commands, chains of operators); split it into functions or smaller scripts", maxNesting)}, true
}

type oldNestScanner struct {
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

func (sc *oldNestScanner) top() *nestFrame { return &sc.stack[len(sc.stack)-1] }

// push opens a level; it reports whether the scan must stop.
func (sc *oldNestScanner) push(k nestKind) bool {
	sc.stack = append(sc.stack, nestFrame{kind: k})
	sc.depth++
	return sc.over()
}

// pushArith opens an arithmetic expression: two levels, as `((` nests
// two in the parser.
func (sc *oldNestScanner) pushArith() bool {
	if sc.push(nestArith) {
		return true
	}
	return sc.push(nestArith)
}

func (sc *oldNestScanner) pop() {
	f := sc.top()
	sc.depth -= 1 + f.ops
	sc.stack = sc.stack[:len(sc.stack)-1]
}

func (sc *oldNestScanner) op() bool {
	sc.top().ops++
	sc.depth++
	return sc.over()
}

// listEnd ends the current list: its chain no longer nests.
func (sc *oldNestScanner) listEnd() {
	f := sc.top()
	sc.depth -= f.ops
	f.ops = 0
}

func (sc *oldNestScanner) over() bool {
	sc.max = max(sc.max, sc.depth)
	if sc.depth > sc.limit {
		sc.at = sc.tok
		return true
	}
	return false
}

func (sc *oldNestScanner) position(off int) (line, col int) {
	if off > len(sc.src) {
		off = len(sc.src)
	}
	line = 1 + strings.Count(sc.src[:off], "\n")
	col = 1 + off - (strings.LastIndexByte(sc.src[:off], '\n') + 1)
	return line, col
}

func (sc *oldNestScanner) peek(n int) byte {
	if sc.i+n < len(sc.src) {
		return sc.src[sc.i+n]
	}
	return 0
}

// scan reports whether src nests deeper than sc.limit.
func (sc *oldNestScanner) scan() bool {
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
func (sc *oldNestScanner) step() bool {
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
func (sc *oldNestScanner) quoted() bool {
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
	sc.i++
	return false
}

// expansion opens what starts at a '$' or a '`'; anything else is one
// plain byte.
func (sc *oldNestScanner) expansion() bool {
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
func (sc *oldNestScanner) skipSingle(escapes bool) {
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
func (sc *oldNestScanner) arith() bool {
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
		sc.i++
	}
	return false
}

// afterClose is the state after a closing parenthesis in code: no word
// follows it but a keyword (`fi`, `done`) or a case item's command.
func (sc *oldNestScanner) afterClose() {
	sc.endWord()
	sc.closePos, sc.argPos = true, false
}

// code scans one byte of shell code.
func (sc *oldNestScanner) code() bool {
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
	sc.startWord(oldIsKeywordByte(c))
	if sc.plainWord {
		sc.word.WriteByte(c)
	}
	sc.i++
	// The rest of a word's ordinary bytes, at once: each would come back
	// here, to this same end, one step at a time.
	for sc.i < len(sc.src) && !oldCodeSpecial[sc.src[sc.i]] {
		if c := sc.src[sc.i]; sc.plainWord {
			if oldIsKeywordByte(c) {
				sc.word.WriteByte(c)
			} else {
				sc.plainWord = false
			}
		}
		sc.i++
	}
	return false
}

// oldCodeSpecial are the bytes code has a case for; any other byte goes to
// its end, the byte of a word.
var oldCodeSpecial = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, '#': true, '\\': true, '\'': true, '"': true,
	'$': true, '`': true, '(': true, ')': true, '{': true, '}': true, ';': true, '&': true, '|': true, '<': true, '>': true}

// standalone reports whether the byte n ahead ends a word.
func (sc *oldNestScanner) standalone(n int) bool {
	c := sc.peek(n)
	return c == 0 || strings.IndexByte(" \t\r\n;&|()<>", c) >= 0
}

func oldIsKeywordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c == '[' || c == ']' || c == '!'
}

func (sc *oldNestScanner) startWord(plain bool) {
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
func (sc *oldNestScanner) endWord() {
	for sc.top().kind == nestBrace {
		sc.pop()
	}
	sc.inWord = false
}

// boundary ends the current word, judging it as a keyword; it reports
// whether the scan must stop.
func (sc *oldNestScanner) boundary() bool {
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

func (sc *oldNestScanner) wordDone(w string, keyword bool) {
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
func (sc *oldNestScanner) keyword(w string) bool {
	f := sc.top()
	if sc.closePos {
		switch w {
		case "fi", "esac", "done", "]]":
			want := map[string]nestKind{"fi": nestIf, "esac": nestCase, "done": nestLoop, "]]": nestTest}[w]
			if f.kind == want {
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

// afterOp reports whether the last thing scanned was a chain operator,
// after which a newline does not end the list.
func (sc *oldNestScanner) afterOp() bool {
	j := sc.i - 2 // before the newline
	for j >= 0 && (sc.src[j] == ' ' || sc.src[j] == '\t' || sc.src[j] == '\r') {
		j--
	}
	return j >= 0 && (sc.src[j] == '|' || sc.src[j] == '&' && j > 0 && sc.src[j-1] == '&')
}

// operator scans ';', '&' and '|' and what they start.
func (sc *oldNestScanner) operator(c byte) bool {
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
func (sc *oldNestScanner) heredocStart() {
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
func (sc *oldNestScanner) heredocs() bool {
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
func (sc *oldNestScanner) delimiterLine(delim string) bool {
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

// sameNesting fails t when the scanner and the old one measure src
// differently: its depth, where a low limit stops the scan, and the
// refusal.
func sameNesting(t *testing.T, src string) {
	t.Helper()
	for _, limit := range []int{1 << 30, 3, 1} {
		sc := nestScanner{src: src, limit: limit}
		old := oldNestScanner{src: src, limit: limit}
		stop, oldStop := sc.scan(), old.scan()
		if stop != oldStop || sc.max != old.max || sc.at != old.at || sc.i != old.i || sc.depth != old.depth {
			t.Fatalf("limit %d, %q: scan %v max %d at %d i %d depth %d; before: %v %d %d %d %d",
				limit, src, stop, sc.max, sc.at, sc.i, sc.depth, oldStop, old.max, old.at, old.i, old.depth)
		}
	}
	is, ok := nestingRefusal(src)
	oldIs, oldOk := oldNestingRefusal(src)
	if is != oldIs || ok != oldOk {
		t.Fatalf("%q: refusal %v %v; before: %v %v", src, is, ok, oldIs, oldOk)
	}
}

// nestingCorpus is the bash comparison's scripts and the fuzz seeds.
func nestingCorpus(t testing.TB) []string {
	srcs := []string{
		"( ( a ) ); { b; }", "echo $(a $(b)) ${c:-${d}} $(( (1+2)*3 ))",
		"if a; then while b; do case c in d) e;; esac; done; fi",
		"cat <<EOF\n$(a)\nEOF\n", "[[ ( a && b ) || c ]]", "f() { g() { :; }; }",
		"a | b && c || d; ! e", "x=(1 (2) 3) `a`", "((a) ); $((1)) `b`",
		"echo \"a $x b\\\"c ${y} `d` $(e)\" 'q' $'r\\'s' $\"t\"\nx=1 fi\ncat <<-'E'\n\t$(a\nE\n",
		"for ((i=0;i<3;i++)); do [[ $a == x* ]] && echo \"$a\"; done; a{b,c}d {x,y} }",
	}
	files, _ := filepath.Glob("testdata/bashdiff/*.txtar")
	for _, name := range files {
		a, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(a.Comment))
		for _, f := range a.Files {
			srcs = append(srcs, string(f.Data))
		}
	}
	return srcs
}

func TestNestingAsBefore(t *testing.T) {
	for _, src := range nestingCorpus(t) {
		sameNesting(t, src)
		for i := 0; i < len(src) && i < 3000; i += 7 {
			sameNesting(t, src[i:])
			sameNesting(t, src[:i])
		}
	}
}

func FuzzNestingAsBefore(f *testing.F) {
	for _, src := range nestingCorpus(f) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 8192 {
			t.Skip()
		}
		sameNesting(t, src)
	})
}
