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

// Candidate is one completion Tab offers: the word as inserted and a
// one-line description, when there is one.
type Candidate struct {
	Word        string
	Description string
	// Dir is true for a directory, which the word ends in / for and
	// which takes no space after it.
	Dir bool
}

// Complete returns the candidates for the word that ends at cursor in
// line (cursor counts runes), and that word as typed: command names in
// command position (functions, builtins, the session's tools, programs
// on its PATH), a wrapped command's verbs and flags and a harness tool's
// flags after its name, $NAME for a word with a $, and file paths
// otherwise. Candidates start with the word; they are sorted, without
// repeats.
func Complete(s *kernel.Session, line string, cursor int) (word string, cands []Candidate) {
	runes := []rune(line)
	cursor = min(max(cursor, 0), len(runes))
	before := string(runes[:cursor])
	words := strings.Fields(before)
	if len(words) == 0 || strings.HasSuffix(before, " ") || strings.HasSuffix(before, "\t") {
		words = append(words, "")
	}
	word = words[len(words)-1]
	prior := commandWords(words[:len(words)-1])

	switch {
	case strings.Contains(word, "$"):
		i := strings.LastIndex(word, "$")
		cands = varCandidates(s, word[:i], word[i+1:])
	case len(prior) == 0 && !strings.Contains(word, "/"):
		cands = commandCandidates(s, word)
	default:
		var only bool
		if len(prior) > 0 {
			cands, only = toolCandidates(s, prior, word)
		}
		if !only && !strings.HasPrefix(word, "-") {
			cands = append(cands, pathCandidates(s.Dir(), s.Vars()["HOME"], word)...)
		}
	}
	slices.SortFunc(cands, func(a, b Candidate) int { return strings.Compare(a.Word, b.Word) })
	cands = slices.CompactFunc(cands, func(a, b Candidate) bool { return a.Word == b.Word })
	return word, cands
}

// commandWords are the words of the command the cursor is in: those
// after the last operator (;, |, &&, ...) and past leading assignments.
func commandWords(words []string) []string {
	start := 0
	for i, w := range words {
		switch strings.TrimLeft(w, "(") {
		case ";", "|", "||", "&&", "&", "|&", "then", "do", "else", "elif", "{", "!", "":
			start = i + 1
		}
		if strings.HasSuffix(w, ";") || strings.HasSuffix(w, "|") || strings.HasSuffix(w, "&") {
			start = i + 1
		}
	}
	out := words[start:]
	for len(out) > 0 && isAssignment(out[0]) {
		out = out[1:]
	}
	return out
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
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

func commandCandidates(s *kernel.Session, prefix string) []Candidate {
	var out []Candidate
	add := func(name, desc string) {
		if strings.HasPrefix(name, prefix) {
			out = append(out, Candidate{Word: name, Description: desc})
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
func toolCandidates(s *kernel.Session, words []string, prefix string) (cands []Candidate, only bool) {
	t, ok := s.Tool(words[0])
	if !ok {
		return nil, false
	}
	if c, ok := t.(*wrapped.Command); ok {
		return wrappedCandidates(c, words[1:], prefix)
	}
	if t.Kind() != kernel.Harness || !strings.HasPrefix(prefix, "-") {
		return nil, false
	}
	out := schemaFlags(t.InputSchema(), prefix)
	for _, f := range []Candidate{{Word: "--json", Description: "the whole input as one JSON object"}, {Word: "--help", Description: "the tool's usage"}} {
		if strings.HasPrefix(f.Word, prefix) {
			out = append(out, f)
		}
	}
	return out, true
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

// varCandidates are $NAME (or ${NAME) for the session's variables whose
// names start with partial, each after lead, the word before the $.
func varCandidates(s *kernel.Session, lead, partial string) []Candidate {
	partial, open := strings.CutPrefix(partial, "{")
	var out []Candidate
	for name := range s.Vars() {
		if !strings.HasPrefix(name, partial) {
			continue
		}
		w := lead + "$" + name
		if open {
			w = lead + "${" + name + "}"
		}
		out = append(out, Candidate{Word: w})
	}
	return out
}

// pathCandidates are the files whose paths start with word, relative to
// dir unless word is absolute or starts with ~/.
func pathCandidates(dir, home, word string) []Candidate {
	lead, _, _ := strings.Cut(word, "=")
	if lead == word || strings.Contains(lead, "/") {
		lead = ""
	} else {
		lead += "="
		word = word[len(lead):]
	}
	base := word
	switch {
	case strings.HasPrefix(word, "~/") && home != "":
		base = filepath.Join(home, word[2:])
		if strings.HasSuffix(word, "/") {
			base += "/"
		}
	case !filepath.IsAbs(word):
		base = filepath.Join(dir, word)
		if word == "" || strings.HasSuffix(word, "/") {
			base += "/"
		}
	}
	parent, partial := filepath.Split(base)
	shown, _ := strings.CutSuffix(word, partial)
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
		c := Candidate{Word: lead + shown + name}
		if fi, err := os.Stat(filepath.Join(parent, name)); err == nil && fi.IsDir() {
			c.Word += "/"
			c.Dir = true
		}
		out = append(out, c)
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
