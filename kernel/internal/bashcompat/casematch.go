package bashcompat

import (
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// MatchCall answers shast.CmdMatch, which rewrite.NoCaseMatch puts
// before a [[ ]] or a case clause (docs/mvdan.md, "Nocasematch"):
//
//	CmdMatch STATUS VAR test OP PIECES...  VAR=1 when [[ WORD OP PATTERN ]] holds, else empty
//	                                       (for =~, BASH_REMATCH too)
//	CmdMatch STATUS VAR case PIECES...     VAR=the number of the case item that matches
//
// Each piece is a kind and a value: "w" a piece of the word, "p" a piece
// of a pattern, "q" a quoted (literal) piece of one; "#N" starts the
// patterns of case item N. Letters match without their case under
// shopt -s nocasematch; [[ ]] always knows extglob's groups, case when
// extglob is on. The command keeps STATUS, as ExtglobCall does.
func MatchCall(sh Shell, hc interp.HandlerContext, args []string) []string {
	if len(args) < 4 {
		return StatusArgv(2)
	}
	status, _ := strconv.Atoi(args[1])
	if p := sh.Option(hc, "errexit"); p != nil && *p {
		status = 0
	}
	name, form, rest := args[2], args[3], args[4:]
	m := matchMode{nocase: HeldOption(hc.Env, "nocasematch"), ext: true}
	var op string
	if form == "test" && len(rest) > 0 {
		op, rest = rest[0], rest[1:]
	} else if p := sh.Option(hc, "extglob"); p == nil || !*p {
		m.ext = false
	}
	var word strings.Builder
	var pats []matchPattern
	for i := 0; i < len(rest); i++ {
		kind := rest[i]
		if item, ok := strings.CutPrefix(kind, "#"); ok {
			n, _ := strconv.Atoi(item)
			pats = append(pats, matchPattern{item: n})
			continue
		}
		if i+1 == len(rest) {
			break
		}
		i++
		switch value := rest[i]; kind {
		case "w":
			word.WriteString(value)
		case "p", "q":
			if pats == nil {
				pats = append(pats, matchPattern{})
			}
			last := &pats[len(pats)-1]
			switch {
			case kind == "q" && op == "=~":
				value = regexp.QuoteMeta(value)
			case kind == "q":
				value = quotePattern(value)
			}
			last.text += value
		}
	}
	if op == "=~" {
		return regexMatch(sh, hc, name, word.String(), pats, m.nocase, status)
	}
	result := ""
	for _, p := range pats {
		if extMatch(p.text, word.String(), m) {
			result = strconv.Itoa(p.item)
			break
		}
	}
	if form == "test" {
		matched := result != ""
		result = ""
		if matched != (op == "!=") {
			result = "1"
		}
	}
	return assignArgv(sh, hc, []string{assignScalar(name, result)}, status)
}

// matchPattern is one pattern of a match: case item's number and text.
type matchPattern struct {
	item int
	text string
}

// quotePattern quotes every character of s that a pattern would take as
// special.
func quotePattern(s string) string {
	if !strings.ContainsAny(s, `*?[]\()|!@+`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\()|!@+`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// regexMatch answers [[ word =~ regex ]]: VAR=1 and BASH_REMATCH set when
// it matches, as mvdan/sh's own =~ does, letters without their case when
// nocase; status 2 for a regex that does not compile.
func regexMatch(sh Shell, hc interp.HandlerContext, name, word string, pats []matchPattern, nocase bool, status int) []string {
	expr := ""
	if len(pats) > 0 {
		expr = pats[0].text
	}
	if nocase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return assignArgv(sh, hc, []string{assignScalar(name, "")}, 2)
	}
	m := re.FindStringSubmatch(word)
	if m == nil {
		return assignArgv(sh, hc, []string{assignScalar(name, "")}, status)
	}
	return assignArgv(sh, hc, []string{assignScalar(name, "1"), assignArray("BASH_REMATCH", m)}, status)
}
