package repl

import (
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Prompt is the primary prompt: ps1 when it is not empty, as it is
// (bash's backslash escapes such as \w are not expanded), otherwise
// "shelter:DIR$ " with DIR the working directory, ~ standing for home,
// and the last status in brackets before the $ when it is not 0:
// "shelter:~/src [1]$ ".
func Prompt(dir, home, ps1 string, status int) string {
	if ps1 != "" {
		return ps1
	}
	var b strings.Builder
	b.WriteString("shelter:")
	b.WriteString(tildeDir(dir, home))
	if status != 0 {
		b.WriteString(" [")
		b.WriteString(strconv.Itoa(status))
		b.WriteByte(']')
	}
	b.WriteString("$ ")
	return b.String()
}

// tildeDir writes dir with ~ for home.
func tildeDir(dir, home string) string {
	home = filepath.Clean(home)
	if home == "" || home == "/" || !filepath.IsAbs(home) {
		return dir
	}
	if dir == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(dir, home+"/"); ok {
		return "~/" + rest
	}
	return dir
}

// continuationPrompt is the prompt of the lines of an entry after its
// first.
const continuationPrompt = "> "

// incomplete reports whether src is an unfinished entry that goes on on
// the next line: an open quote, a compound command without its end, a
// heredoc without its delimiter, a trailing && or |, or a trailing
// backslash outside a comment. An entry with any other syntax error is
// complete: running it reports the error. src is parsed as the line
// editor will run it, ended by a newline: without one the parser finds
// `cat <<EOF` wrong (its body cannot start) rather than unfinished.
func incomplete(src string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src+"\n"), "")
	if err != nil {
		return syntax.IsIncomplete(err)
	}
	trailing := len(src) - len(strings.TrimRight(src, `\`))
	if trailing%2 == 0 {
		return false
	}
	// A comment on the last line runs to its end, backslash included.
	lastLine := strings.LastIndexByte(src, '\n') + 1
	commented := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok && int(c.Hash.Offset()) >= lastLine {
			commented = true
		}
		return !commented
	})
	return !commented
}
