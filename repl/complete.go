package repl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// Candidate is one completion Tab offers: the word as it replaces the
// one typed, quoted for the shell as that one is (a backslash before a
// space or a quote, or inside the quote the word was opened with, closed
// after a whole name), and a one-line description, when there is one.
type Candidate struct {
	Word        string
	Description string
}

// Complete returns the candidates for the word that ends at cursor in
// line (cursor counts runes), and that word as typed, which every
// candidate starts with and replaces. The line is split as the shell
// splits it (quotes, backslashes, operators); the word's value, without
// its quotes, is completed: command names in command position (after
// |, ;, &&, if, while, time..., and past assignments: functions,
// builtins, the session's tools, programs on its PATH), a wrapped
// command's verbs and flags and a harness tool's flags after its name,
// $NAME when the word ends in a variable's name being typed, and file
// paths otherwise ($NAME/ and ~/ expanded with the session's
// variables). Candidates are sorted, without repeats.
func Complete(s *kernel.Session, line string, cursor int) (word string, cands []Candidate) {
	runes := []rune(line)
	cursor = min(max(cursor, 0), len(runes))
	vars := s.Vars()
	prior, last := splitLine(string(runes[:cursor]), vars)
	args, redirected := commandWords(prior)

	switch {
	case last.dollar >= 0:
		cands = varCandidates(vars, last)
	case len(args) == 0 && !redirected && !strings.Contains(last.value, "/"):
		cands = commandCandidates(s, last)
	default:
		var only bool
		if len(args) > 0 && !redirected {
			cands, only = toolCandidates(s, args, last)
		}
		if !only && (!strings.HasPrefix(last.value, "-") || strings.Contains(last.value, "=")) {
			cands = append(cands, pathCandidates(s.Dir(), vars["HOME"], last)...)
		}
	}
	slices.SortFunc(cands, func(a, b Candidate) int { return strings.Compare(a.Word, b.Word) })
	cands = slices.CompactFunc(cands, func(a, b Candidate) bool { return a.Word == b.Word })
	return last.raw, cands
}

// commandWords are the values of the words of the command the cursor is
// in: those after the last operator (;, |, &&, ...) or reserved word
// that starts a command (if, then, do, while, time, !, ...), past
// leading assignments and redirections. redirected is true when the
// word being typed is a redirection's target.
func commandWords(tokens []token) (words []string, redirected bool) {
	start := 0
	for i, t := range tokens {
		switch {
		case t.op && !isRedirect(t.value):
			start = i + 1
		case !t.op && i == start && slices.Contains(commandStarters, t.value):
			start = i + 1
		}
	}
	rest := tokens[start:]
	for i := 0; i < len(rest); i++ {
		if rest[i].op {
			i++ // a redirection and its target
			continue
		}
		if len(words) == 0 && isAssignment(rest[i].value) {
			continue
		}
		words = append(words, rest[i].value)
	}
	n := len(tokens)
	return words, n > 0 && tokens[n-1].op && isRedirect(tokens[n-1].value)
}

// commandStarters are the reserved words after which a command starts.
var commandStarters = []string{"if", "then", "elif", "else", "do", "while", "until", "time", "!", "{"}

func isRedirect(op string) bool { return op[0] == '<' || op[0] == '>' || op == "&>" }

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && strings.IndexFunc(name, func(r rune) bool {
		return r > 0x7f || !isNameByte(byte(r))
	}) < 0
}

// shellWords are the shell's reserved words and the builtins mvdan/sh
// and shelter run, for command completion.
var shellWords = []string{
	"if", "then", "else", "elif", "fi", "for", "in", "do", "done", "while", "until",
	"case", "esac", "function", "select", "time", "coproc",
	".", ":", "[", "alias", "bg", "break", "builtin", "cd", "command", "continue",
	"declare", "dirs", "echo", "eval", "exec", "exit", "export", "false", "fg",
	"getopts", "hash", "help", "jobs", "kill", "let", "local", "mapfile", "popd",
	"printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set",
	"shift", "shopt", "source", "test", "trap", "true", "type", "typeset",
	"ulimit", "umask", "unalias", "unset", "wait",
}

func commandCandidates(s *kernel.Session, w lastWord) []Candidate {
	prefix := w.value
	var out []Candidate
	add := func(name, desc string) {
		if strings.HasPrefix(name, prefix) {
			out = append(out, Candidate{Word: w.extend(name[len(prefix):], true), Description: desc})
		}
	}
	for _, t := range s.Tools() {
		add(t.Name(), firstLine(t.Description()))
	}
	for _, f := range s.Funcs() {
		add(f, "function")
	}
	for _, w := range shellWords {
		add(w, "")
	}
	for _, dir := range filepath.SplitList(s.Vars()["PATH"]) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), prefix) {
				continue
			}
			if fi, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				add(e.Name(), "")
			}
		}
	}
	// A name both a tool and a program keeps the tool's description.
	slices.SortStableFunc(out, func(a, b Candidate) int { return strings.Compare(a.Word, b.Word) })
	return slices.CompactFunc(out, func(a, b Candidate) bool { return a.Word == b.Word })
}

// toolCandidates are what may follow a tool's name: a wrapped command's
// verbs and flags, a harness tool's flags. only is true where nothing
// else may come (a wrapped command's verb).
func toolCandidates(s *kernel.Session, words []string, w lastWord) (cands []Candidate, only bool) {
	t, ok := s.Tool(words[0])
	if !ok {
		return nil, false
	}
	prefix := w.value
	if c, ok := t.(*wrapped.Command); ok {
		cands, only = wrappedCandidates(c, words[1:], prefix)
	} else {
		if t.Kind() != kernel.Harness || !strings.HasPrefix(prefix, "-") {
			return nil, false
		}
		cands = schemaFlags(t.InputSchema(), prefix)
		for _, f := range []Candidate{{Word: "--json", Description: "the whole input as one JSON object"}, {Word: "--help", Description: "the tool's usage"}} {
			if strings.HasPrefix(f.Word, prefix) {
				cands = append(cands, f)
			}
		}
		only = true
	}
	// The names are values: quoted as the word typed is.
	for i := range cands {
		cands[i].Word = w.extend(cands[i].Word[len(prefix):], true)
	}
	return cands, only
}

// wrappedCandidates are a wrapped command's verbs, before one is given,
// and the chosen verb's flags (the root's before a verb).
func wrappedCandidates(c *wrapped.Command, args []string, prefix string) (cands []Candidate, only bool) {
	var verb, root *wrapped.Verb
	for _, v := range c.Verbs() {
		if v.IsRoot() {
			root = v
		}
	}
	for _, a := range args {
		if v, ok := c.Verb(a); ok && !v.IsRoot() {
			verb = v
			break
		}
	}
	var out []Candidate
	if verb == nil && !strings.HasPrefix(prefix, "-") {
		for _, v := range c.Verbs() {
			if !v.IsRoot() && strings.HasPrefix(v.Name(), prefix) {
				out = append(out, Candidate{Word: v.Name(), Description: firstLine(v.About())})
			}
		}
		return out, true
	}
	if verb == nil {
		verb = root
	}
	if verb == nil || !strings.HasPrefix(prefix, "-") {
		return nil, false
	}
	for _, f := range verb.Flags() {
		for _, sp := range f.Spellings() {
			if strings.HasPrefix(sp, prefix) {
				out = append(out, Candidate{Word: sp, Description: firstLine(f.About())})
			}
		}
	}
	return out, true
}

// schemaFlags are the top-level properties of an input schema as flags
// (a property max_lines is --max-lines), with their descriptions.
func schemaFlags(schema json.RawMessage, prefix string) []Candidate {
	var doc struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &doc) != nil {
		return nil
	}
	var out []Candidate
	for name, p := range doc.Properties {
		flag := "--" + strings.ReplaceAll(name, "_", "-")
		if strings.HasPrefix(flag, prefix) {
			out = append(out, Candidate{Word: flag, Description: firstLine(p.Description)})
		}
	}
	return out
}

// varCandidates are $NAME (or ${NAME}) for the session's variables
// whose names start with the one being typed, each after what the word
// has before its $.
func varCandidates(vars map[string]string, w lastWord) []Candidate {
	lead := w.raw[:w.dollar]
	partial, open := strings.CutPrefix(w.raw[w.dollar+1:], "{")
	var out []Candidate
	for name := range vars {
		if !strings.HasPrefix(name, partial) {
			continue
		}
		word := lead + "$" + name
		if open {
			word = lead + "${" + name + "}"
		}
		out = append(out, Candidate{Word: word})
	}
	return out
}

// pathCandidates are the files whose paths start with the word's value,
// relative to dir unless it is absolute or starts with ~/; after a
// NAME= or --flag= the value past the = is the path. Hidden files are
// offered once the name typed starts with a dot.
func pathCandidates(dir, home string, w lastWord) []Candidate {
	word, tilde := w.value, w.tilde
	if lead, rest, ok := strings.Cut(word, "="); ok && !strings.Contains(lead, "/") {
		word, tilde = rest, strings.HasPrefix(rest, "~/")
	}
	wordDir, partial := "", word
	if i := strings.LastIndexByte(word, '/'); i >= 0 {
		wordDir, partial = word[:i+1], word[i+1:]
	}
	parent := wordDir
	switch {
	case tilde && strings.HasPrefix(wordDir, "~/") && home != "":
		parent = filepath.Join(home, wordDir[2:])
	case wordDir == "":
		parent = dir
	case !filepath.IsAbs(wordDir):
		parent = filepath.Join(dir, wordDir)
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var out []Candidate
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, partial) || strings.HasPrefix(name, ".") && !strings.HasPrefix(partial, ".") {
			continue
		}
		rest := name[len(partial):]
		if fi, err := os.Stat(filepath.Join(parent, name)); err == nil && fi.IsDir() {
			out = append(out, Candidate{Word: w.extend(rest+"/", false)})
		} else {
			out = append(out, Candidate{Word: w.extend(rest, true)})
		}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
