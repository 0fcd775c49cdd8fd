package kernel

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// guard refuses the shell commands that harness tools replace
// ([Replacer]) and names the tool to call instead. It is a filter for a
// cooperative agent, not a sandbox: a determined script can always find
// another spelling (`bash -c`, a copy of the binary, a variable assigned
// dynamically).
//
// The static pass (validate) asks it about every simple command of the
// script before anything runs; runCommand asks again at execution, on the
// expanded words, which catches dynamic commands such as `$cmd -u x`.
type guard struct {
	commands  []guardEntry        // by command words
	vars      []guardEntry        // by environment variable name
	launchers map[string]Launcher // the tools it looks through, by name
}

// guardEntry is one replaces entry of one tool.
type guardEntry struct {
	words []string // as typed: "systemctl", "restart"
	tool  Tool
}

// newGuard collects the replaces entries of the tools a session can call:
// an entry whose tool is not among them refuses nothing, so a refusal
// never names a tool the session cannot call. An entry naming the tool
// itself is ignored: a tool never refuses its own calls.
func newGuard(tools map[string]Tool) *guard {
	g := &guard{}
	for _, name := range sortedNames(tools) {
		if l, ok := tools[name].(Launcher); ok {
			if g.launchers == nil {
				g.launchers = make(map[string]Launcher)
			}
			g.launchers[name] = l
		}
		r, ok := tools[name].(Replacer)
		if !ok {
			continue
		}
		for _, entry := range r.Replaces() {
			words := strings.Fields(entry)
			if len(words) == 0 {
				continue
			}
			words[0] = filepath.Base(words[0])
			if words[0] == name {
				continue
			}
			e := guardEntry{words: words, tool: tools[name]}
			if len(words) == 1 && isEnvName(words[0]) {
				g.vars = append(g.vars, e)
			} else {
				g.commands = append(g.commands, e)
			}
		}
	}
	return g
}

// isEnvName reports whether an entry names an environment variable: one
// upper-case word.
func isEnvName(w string) bool {
	if w == "" || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func (g *guard) empty() bool { return g == nil || len(g.commands)+len(g.vars) == 0 }

// matchCommand finds the entry a simple command matches. The command is
// checked as written and again after each launcher it starts with (a
// registered [Launcher] such as env or timeout, command, exec, sudo) is
// unwrapped; the variables assigned on the way (env NAME=VALUE) are
// checked against the variable entries. A command matches an entry when the basename of its
// first word is the entry's first word and the entry's other words
// appear, in order, among its later words. Opaque words never match.
func (g *guard) matchCommand(words []Word) (guardEntry, bool) {
	if g.empty() {
		return guardEntry{}, false
	}
	for len(words) > 0 && !words[0].Opaque {
		if e, ok := g.matchWords(words); ok {
			return e, true
		}
		next, ok := g.unwrapOne(words)
		if !ok {
			break
		}
		for _, a := range next.Assigns {
			if e, ok := g.matchVar(a); ok {
				return e, true
			}
		}
		words = next.Words
	}
	return guardEntry{}, false
}

// matchWords matches one command, launchers not unwrapped.
func (g *guard) matchWords(words []Word) (guardEntry, bool) {
	name := commandBase(words[0].Text)
	for _, e := range g.commands {
		if e.words[0] == name && subsequence(e.words[1:], words[1:]) {
			return e, true
		}
	}
	return guardEntry{}, false
}

// matchVar finds the entry for a variable being assigned or exported.
func (g *guard) matchVar(name string) (guardEntry, bool) {
	if g.empty() {
		return guardEntry{}, false
	}
	for _, e := range g.vars {
		if e.words[0] == name {
			return e, true
		}
	}
	return guardEntry{}, false
}

// subsequence reports whether want appears in words in order, other
// words allowed in between.
func subsequence(want []string, words []Word) bool {
	i := 0
	for _, w := range words {
		if i == len(want) {
			break
		}
		if !w.Opaque && w.Text == want[i] {
			i++
		}
	}
	return i == len(want)
}

// refuse is the guard at execution, on expanded words. Earlier commands
// of the script may have run, so the line says only that this one did
// not.
func (g *guard) refuse(args []string) (string, bool) {
	if g.empty() {
		return "", false
	}
	words := literalWords(args)
	e, ok := g.matchCommand(words)
	if !ok {
		return "", false
	}
	return guardLine(wordsText(words), e, "it did not run"), true
}

// guardLine is the refusal: the command as written, the tool to call
// instead with its description (when it has one), and what happened. It
// is one line even when a word holds a newline (`xargs -0` items).
func guardLine(command string, e guardEntry, outcome string) string {
	about := ""
	if d := shortDescription(e.tool); d != "" {
		about = " (" + singleLine(d) + ")"
	}
	return fmt.Sprintf("shelter: '%s' is done with the tool '%s' here%s; call %s instead — %s",
		singleLine(command), e.tool.Name(), about, e.tool.Name(), outcome)
}

// singleLine shows control characters of s with Go escapes ("\n"), so a
// refusal stays one line.
func singleLine(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// shortDescription is a tool's description without the "Use instead of"
// sentence agents get, first line only.
func shortDescription(t Tool) string {
	d := t.Description()
	if i := strings.Index(d, "Use instead of:"); i >= 0 {
		d = d[:i]
	}
	d = strings.TrimSpace(d)
	if i := strings.IndexByte(d, '\n'); i >= 0 {
		d = strings.TrimSpace(d[:i])
	}
	return d
}

// wordsText renders a command for a refusal; an opaque word is "…".
func wordsText(words []Word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Text
		if w.Opaque {
			parts[i] = "…"
		}
	}
	return strings.Join(parts, " ")
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func literalWords(args []string) []Word {
	words := make([]Word, len(args))
	for i, a := range args {
		words[i] = Word{Text: a}
	}
	return words
}
