package kernel

import (
	"fmt"
	"path/filepath"
	"slices"
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
	commands []guardEntry // by command words
	vars     []guardEntry // by environment variable name
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
// checked as written and again after each launcher it starts with (env,
// command, exec, nohup, nice, timeout, xargs, sudo) is unwrapped; the
// variables env and sudo assign on the way are checked against the
// variable entries. A command matches an entry when the basename of its
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
		inner, assigns, ok := unwrapOne(words)
		if !ok {
			break
		}
		for _, a := range assigns {
			if e, ok := g.matchVar(a); ok {
				return e, true
			}
		}
		words = inner
	}
	return guardEntry{}, false
}

// matchWords matches one command, launchers not unwrapped.
func (g *guard) matchWords(words []Word) (guardEntry, bool) {
	name := filepath.Base(words[0].Text)
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

// launcherOptions lists, per launcher, the options that take a separate
// value; any other word starting with '-' is a flag on its own.
var launcherOptions = map[string][]string{
	"env":     {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
	"command": {},
	"exec":    {"-a"},
	"nohup":   {},
	"nice":    {"-n", "--adjustment"},
	"timeout": {"-s", "--signal", "-k", "--kill-after"},
	"xargs":   {"-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "--eof", "-I", "-i", "--replace", "-L", "-l", "--max-lines", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"},
	"sudo":    {"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"},
}

// unwrapLaunchers strips env, command, exec, nohup, nice, timeout, xargs
// and sudo with their options from the front of a command, returning the
// command they launch and the variables env or sudo assign on the way.
// The command xargs launches ends with an opaque word, for the words it
// reads at execution. `command -v` and similar queries launch nothing and
// are returned as is.
func unwrapLaunchers(words []Word) (inner []Word, assigns []string) {
	for {
		next, as, ok := unwrapOne(words)
		if !ok {
			return words, assigns
		}
		assigns = append(assigns, as...)
		words = next
	}
}

// unwrapOne strips one launcher with its options. ok is false when words
// do not start with a launcher that launches something.
func unwrapOne(words []Word) (inner []Word, assigns []string, ok bool) {
	if len(words) == 0 || words[0].Opaque {
		return words, nil, false
	}
	launcher := filepath.Base(words[0].Text)
	valued, known := launcherOptions[launcher]
	if !known {
		return words, nil, false
	}
	if launcher == "command" && len(words) > 1 && (words[1].Text == "-v" || words[1].Text == "-V") {
		return words, nil, false
	}
	rest := words[1:]
	for len(rest) > 0 {
		w := rest[0]
		if w.Opaque {
			break
		}
		if w.Text == "--" {
			rest = rest[1:]
			break
		}
		if strings.HasPrefix(w.Text, "-") && len(w.Text) > 1 {
			rest = rest[1:]
			if clusterTakesNext(w.Text, valued) && len(rest) > 0 {
				rest = rest[1:] // -0n 1: the cluster's last option takes the next word
				continue
			}
			if slices.Contains(valued, w.Text) && len(rest) > 0 {
				value := rest[0]
				rest = rest[1:]
				if launcher == "env" && (w.Text == "-S" || w.Text == "--split-string") && !value.Opaque {
					// env -S 'cmd args' runs the words of its value.
					rest = append(literalWords(strings.Fields(value.Text)), rest...)
				}
			} else if s, ok := strings.CutPrefix(w.Text, "--split-string="); ok && launcher == "env" {
				rest = append(literalWords(strings.Fields(s)), rest...)
			}
			continue
		}
		if launcher == "env" || launcher == "sudo" {
			if name, _, ok := strings.Cut(w.Text, "="); ok && isName(name) {
				assigns = append(assigns, name)
				rest = rest[1:]
				continue
			}
		}
		break
	}
	switch {
	case launcher == "timeout" && len(rest) > 0:
		rest = rest[1:] // the duration
	case launcher == "xargs" && len(rest) > 0:
		// xargs adds words read at execution: a tool's static check must
		// not judge `xargs logs --unit` as if it ended there.
		rest = append(slices.Clip(rest), Word{Opaque: true})
	}
	return rest, assigns, true
}

// clusterTakesNext reports whether a cluster of one-letter options such as
// -0n or -iu ends with one that takes a value; an option inside the
// cluster that takes a value takes the rest of the word instead.
func clusterTakesNext(word string, valued []string) bool {
	if len(word) < 3 || word[1] == '-' {
		return false
	}
	for i := 1; i < len(word); i++ {
		if slices.Contains(valued, "-"+word[i:i+1]) {
			return i == len(word)-1
		}
	}
	return false
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
