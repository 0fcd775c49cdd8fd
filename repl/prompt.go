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
// backslash. An entry with any other syntax error is complete: running
// it reports the error.
func incomplete(src string) bool {
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return syntax.IsIncomplete(err)
	}
	trailing := len(src) - len(strings.TrimRight(src, `\`))
	return trailing%2 == 1
}
