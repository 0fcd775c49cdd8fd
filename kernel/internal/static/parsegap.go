package static

import "strings"

// A parseGap is a construct mvdan/sh's parser refuses that bash parses
// (docs/mvdan.md, "Parse gaps"): what bash does with it, and what to
// write instead that both parse and run alike.
type parseGap struct {
	// match reports whether the parser's message msg, at the source from
	// the error's position on (at) and the line up to it (before), is
	// this gap.
	match      func(msg, before, at string) bool
	bash       string
	workaround string
}

var parseGaps = []parseGap{{
	match: func(msg, _, at string) bool {
		_, rest, ok := strings.Cut(at, "]")
		return strings.Contains(msg, "must be followed by `=`") && strings.HasPrefix(at, "[") && ok && strings.HasPrefix(rest, "+=")
	},
	bash:       "bash takes [k]+=v in an array's list as an append to the element",
	workaround: "x=([k]=v) in a list that starts the array, x[k]+=v after it",
}, {
	match: func(msg, _, _ string) bool {
		return strings.HasSuffix(msg, "must follow a name") || strings.HasSuffix(msg, "must follow a name.")
	},
	bash:       "bash parses it and fails only this arithmetic when it runs",
	workaround: "write to a name in an expression of its own, (( x += 2 )), and an array's element as a[k]=$(( a[k] + 1 ))",
}, {
	match: func(msg, _, _ string) bool {
		return strings.Contains(msg, "not a valid parameter expansion operator: `~`")
	},
	bash:       "bash's ${v~} and ${v~~} toggle the case of the first letter and of every letter",
	workaround: "tr '[:lower:][:upper:]' '[:upper:][:lower:]' <<<\"$v\"",
}, {
	match: func(msg, before, _ string) bool {
		return strings.Contains(msg, "must be followed by an expression") && strings.Contains(before, "((")
	},
	bash:       "bash parses it and fails only this arithmetic when it runs",
	workaround: "complete the expression, or test the operands first",
}, {
	match: func(msg, _, _ string) bool {
		return strings.Contains(msg, "floating point arithmetic")
	},
	bash:       "bash parses it and fails only this arithmetic when it runs (it has integers only)",
	workaround: "awk 'BEGIN { print 1.5 * 2 }' for decimals",
}, {
	match: func(msg, before, _ string) bool {
		return strings.Contains(msg, "`-` cannot be followed by a word") && strings.HasSuffix(before, "${!-")
	},
	bash:       "bash's ${!-word} is $! or word when no job has started",
	workaround: "${!:-word}",
}, {
	match: func(msg, _, _ string) bool {
		return strings.Contains(msg, "`let` must be followed by an expression")
	},
	bash:       "bash parses let without an argument and fails only let when it runs (status 1)",
	workaround: "give let an expression, or write (( … ))",
}, {
	match: func(msg, before, _ string) bool {
		i := strings.LastIndex(before, "let ")
		tail := strings.TrimRight(before, " ")
		return strings.Contains(msg, "must follow an expression") && i >= 0 &&
			(strings.HasSuffix(tail, ">") || strings.HasSuffix(tail, "<"))
	},
	bash:       "bash takes a redirection after let's arguments",
	workaround: "{ let …; } 2>/dev/null",
}, {
	match: func(msg, before, _ string) bool {
		return strings.HasPrefix(msg, "not a valid arithmetic operator") && strings.Contains(before, "[")
	},
	bash:       "bash takes a key with spaces in an associative array's subscript",
	workaround: "quote the key: [\"a b\"]=v, ${m[\"a b\"]}",
}}

// BashAccepts is what to add to the parse error msg, at line and col of
// src (1-based, col in bytes), when bash would have parsed the script:
// what bash does with it and the workaround, "bash …; workaround: …".
func BashAccepts(src string, line, col int, msg string) (string, bool) {
	start := 0
	for range line - 1 {
		i := strings.IndexByte(src[start:], '\n')
		if i < 0 {
			return "", false
		}
		start += i + 1
	}
	if col < 1 || col-1 > len(src)-start {
		return "", false
	}
	off := start + col - 1
	before, at := src[start:off], src[off:]
	for _, g := range parseGaps {
		if g.match(msg, before, at) {
			return g.bash + "; workaround: " + g.workaround, true
		}
	}
	return "", false
}
