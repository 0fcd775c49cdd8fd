package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cliDoc is the command-line contract, whose blocks are the help output.
var cliDoc, _ = filepath.Abs(filepath.Join("..", "..", "docs", "cli.md"))

// helpHeading introduces a help block in docs/cli.md: "### `shelter help
// check`", "### `shelter --help`".
var helpHeading = regexp.MustCompile("^### `shelter (?:help ([a-z]+)|--help)`$")

// helpBlocks reads docs/cli.md's help blocks, by verb ("run" for
// `shelter --help`): the fenced block after each heading.
func helpBlocks(file string) (map[string]string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	blocks := map[string]string{}
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		m := helpHeading.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		verb := m[1]
		if verb == "" {
			verb = "run"
		}
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		}
		var b strings.Builder
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.WriteString(lines[i] + "\n")
		}
		if _, dup := blocks[verb]; dup {
			return nil, fmt.Errorf("%s: two blocks for %s", file, verb)
		}
		blocks[verb] = b.String()
	}
	return blocks, nil
}

// TestDocsHoldTheHelp: docs/cli.md has each verb's help, exactly, and no
// block for a verb that is not there.
func TestDocsHoldTheHelp(t *testing.T) {
	blocks, err := helpBlocks(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range append([]string{"run"}, verbs...) {
		want := usage(verb)
		got, ok := blocks[verb]
		if !ok {
			t.Errorf("docs/cli.md has no block for %s; add it:\n%s", verb, want)
			continue
		}
		if got != want {
			t.Errorf("docs/cli.md's block for %s is not its help:\n%s", verb, diffLines(got, want))
		}
		delete(blocks, verb)
	}
	for verb := range blocks {
		t.Errorf("docs/cli.md has a block for %s, which is no verb", verb)
	}
}

// diffLines shows the first line where got and want differ.
func diffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got %q\nwant %q", i+1, gl, wl)
		}
	}
	return "(equal)"
}
