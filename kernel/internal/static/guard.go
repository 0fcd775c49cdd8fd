package static

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// A Guard refuses the shell commands that harness tools replace (the
// kernel's Replacer) and names the tool to call instead. It is a filter
// for a cooperative agent, not a sandbox: a determined script can always
// find another spelling (`bash -c`, a copy of the binary, a variable
// assigned dynamically).
//
// The static pass asks it about every simple command of the script
// before anything runs; the kernel asks again at execution, on the
// expanded words, which catches dynamic commands such as `$cmd -u x`. A
// nil *Guard refuses nothing and looks through no launcher of its own.
type Guard struct {
	commands  []Entry          // by command words
	vars      []Entry          // by environment variable name
	launchers map[string]*Tool // the tools it looks through, by name
}

// A Tool is what the guard knows of one of a session's tools.
type Tool struct {
	// Name is the tool's name, as the session calls it.
	Name string
	// Description is the tool's description, asked only when a refusal
	// names the tool.
	Description func() string
	// Replaces are the commands the tool replaces, as typed
	// ("journalctl", "systemctl restart"); an entry of one upper-case
	// word names an environment variable. Nil for none.
	Replaces []string
	// Unwrap, for a launcher, finds the command its words launch
	// (words[0] is the launcher's name as typed); nil for a tool that
	// launches nothing.
	Unwrap func(words []shast.Word) (Launched, bool)
}

// Launched is the command a launcher's words launch: its words, and the
// variables the launcher sets for it (env NAME=VALUE).
type Launched struct {
	Words   []shast.Word
	Assigns []string
}

// An Entry is one replaces entry of one tool.
type Entry struct {
	words []string // as typed: "systemctl", "restart"
	tool  *Tool
}

// Tool is the name of the tool the entry names.
func (e Entry) Tool() string { return e.tool.Name }

// NewGuard collects the replaces entries of the tools a session can call,
// in the order given (the kernel sorts them by name): an entry whose tool
// is not among them refuses nothing, so a refusal never names a tool the
// session cannot call. An entry naming the tool itself is ignored: a tool
// never refuses its own calls.
func NewGuard(tools []Tool) *Guard {
	g := &Guard{}
	for i := range tools {
		t := &tools[i]
		name := t.Name
		if t.Unwrap != nil {
			if g.launchers == nil {
				g.launchers = make(map[string]*Tool)
			}
			g.launchers[name] = t
		}
		for _, entry := range t.Replaces {
			words := strings.Fields(entry)
			if len(words) == 0 {
				continue
			}
			words[0] = filepath.Base(words[0])
			if words[0] == name {
				continue
			}
			e := Entry{words: words, tool: t}
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

func (g *Guard) empty() bool { return g == nil || len(g.commands)+len(g.vars) == 0 }

// MatchCommand finds the entry a simple command matches. The command is
// checked as written and again after each launcher it starts with (a
// registered launcher such as env or timeout, command, exec, sudo) is
// unwrapped; the variables assigned on the way (env NAME=VALUE) are
// checked against the variable entries. A command matches an entry when the basename of its
// first word is the entry's first word and the entry's other words
// appear, in order, among its later words. Opaque words never match.
func (g *Guard) MatchCommand(words []shast.Word) (Entry, bool) {
	if g.empty() {
		return Entry{}, false
	}
	for len(words) > 0 && !words[0].Opaque {
		if e, ok := g.matchWords(words); ok {
			return e, true
		}
		next, ok := g.UnwrapOne(words)
		if !ok {
			break
		}
		for _, a := range next.Assigns {
			if e, ok := g.MatchVar(a); ok {
				return e, true
			}
		}
		words = next.Words
	}
	return Entry{}, false
}

// matchWords matches one command, launchers not unwrapped.
func (g *Guard) matchWords(words []shast.Word) (Entry, bool) {
	name := CommandBase(words[0].Text)
	for _, e := range g.commands {
		if e.words[0] == name && subsequence(e.words[1:], words[1:]) {
			return e, true
		}
	}
	return Entry{}, false
}

// MatchVar finds the entry for a variable being assigned or exported.
func (g *Guard) MatchVar(name string) (Entry, bool) {
	if g.empty() {
		return Entry{}, false
	}
	for _, e := range g.vars {
		if e.words[0] == name {
			return e, true
		}
	}
	return Entry{}, false
}

// subsequence reports whether want appears in words in order, other
// words allowed in between.
func subsequence(want []string, words []shast.Word) bool {
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

// Refuse is the guard at execution, on expanded words. Earlier commands
// of the script may have run, so the line says only that this one did
// not.
func (g *Guard) Refuse(args []string) (string, bool) {
	if g.empty() {
		return "", false
	}
	words := literalWords(args)
	e, ok := g.MatchCommand(words)
	if !ok {
		return "", false
	}
	return e.Line(WordsText(words), "it did not run"), true
}

// Line is the refusal of command by e: the command as written, the tool
// to call instead with its description (when it has one), and what
// happened. It is one line even when a word holds a newline (`xargs -0`
// items).
func (e Entry) Line(command, outcome string) string {
	about := ""
	if d := shortDescription(e.tool); d != "" {
		about = " (" + SingleLine(d) + ")"
	}
	return fmt.Sprintf("shelter: '%s' is done with the tool '%s' here%s; call %s instead — %s",
		SingleLine(command), e.tool.Name, about, e.tool.Name, outcome)
}

// SingleLine shows control characters of s with Go escapes ("\n"), so a
// refusal stays one line.
func SingleLine(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// shortDescription is a tool's description without the "Use instead of"
// sentence agents get, first line only.
func shortDescription(t *Tool) string {
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

// WordsText renders a command for a refusal; an opaque word is "…".
func WordsText(words []shast.Word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Text
		if w.Opaque {
			parts[i] = "…"
		}
	}
	return strings.Join(parts, " ")
}

// IsName reports whether s is a shell variable name.
func IsName(s string) bool {
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

func literalWords(args []string) []shast.Word {
	words := make([]shast.Word, len(args))
	for i, a := range args {
		words[i] = shast.Word{Text: a}
	}
	return words
}
