package static

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The guard's variable entries judge every variable a script sets by
// name; these find the names a command sets.

// AssignedNames are the variables a builtin call sets by name: read's
// names (and -a ARRAY), printf -v VAR, mapfile's and readarray's ARRAY,
// getopts' NAME. Opaque words are skipped.
func AssignedNames(words []shast.Word) []string {
	if words[0].Opaque {
		return nil
	}
	args := words[1:]
	var names []string
	switch words[0].Text {
	case "read":
		for i := 0; i < len(args); i++ {
			w := args[i]
			switch {
			case w.Opaque:
			case w.Text == "-a" && i+1 < len(args):
				names = append(names, args[i+1].Text)
				i++
			case strings.Contains("-d -n -N -p -t -u -i", w.Text) && strings.HasPrefix(w.Text, "-") && len(w.Text) == 2:
				i++ // the option's value
			case strings.HasPrefix(w.Text, "-"):
			case IsName(w.Text):
				names = append(names, w.Text)
			}
		}
	case "printf":
		if len(args) > 1 && args[0].Text == "-v" && !args[1].Opaque {
			names = append(names, args[1].Text)
		}
	case "mapfile", "readarray":
		if n := len(args); n > 0 && !args[n-1].Opaque && IsName(args[n-1].Text) {
			names = append(names, args[n-1].Text)
		}
	case "getopts":
		if len(args) > 1 && !args[1].Opaque {
			names = append(names, args[1].Text)
		}
	}
	return names
}

// LiteralFlag is a declaration's option word (-n, -gx, +x).
func LiteralFlag(w *syntax.Word) (string, bool) {
	lit := w.Lit()
	return lit, len(lit) > 1 && (lit[0] == '-' || lit[0] == '+') && IsName(lit[1:])
}

// BracedNames are the variable names a word such as {PATH,HOME}=x or
// {PATH,HOME} expands to; none when it has no brace expansion or is not
// known before execution.
func BracedNames(w *syntax.Word) []string {
	if !strings.Contains(w.Lit(), "{") {
		return nil
	}
	// SplitBraces changes the word it is given: it gets a copy.
	word := &syntax.Word{Parts: make([]syntax.WordPart, len(w.Parts))}
	for i, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok {
			c := *lit
			p = &c
		}
		word.Parts[i] = p
	}
	if !syntax.SplitBraces(word) {
		return nil
	}
	var names []string
	for expanded, err := range expand.BracesSeq(nil, word) {
		if err != nil {
			break
		}
		name, _, _ := strings.Cut(expanded.Lit(), "=")
		name, _, _ = strings.Cut(name, "+") // NAME+=VALUE
		name, _, _ = strings.Cut(name, "[") // NAME[i]=VALUE
		if IsName(name) {
			names = append(names, name)
		}
	}
	return names
}
