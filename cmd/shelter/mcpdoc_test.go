package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mcpDoc is the MCP server's guide, whose client entries are tested here.
var mcpDoc, _ = filepath.Abs(filepath.Join("..", "..", "docs", "mcp.md"))

// fencedBlocks returns the fenced blocks of a markdown file in the given
// language, in order.
func fencedBlocks(t *testing.T, file, lang string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?ms)^```" + lang + "\n(.*?)^```$")
	var blocks []string
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// clientEntry is a server in a client's configuration: stdio (command,
// args) or HTTP (url, headers); type where the client asks for one.
type clientEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// TestMCPDocClientConfigs: every JSON block of docs/mcp.md parses, each
// client entry is a stdio or an HTTP server as its client's format has
// it (VS Code's servers carry a type, mcpServers' need none), and every
// shelter command line in it (JSON and `claude mcp add`) is one that
// shelter serve's flags take.
func TestMCPDocClientConfigs(t *testing.T) {
	blocks := fencedBlocks(t, mcpDoc, "json")
	if len(blocks) < 4 {
		t.Fatalf("docs/mcp.md has %d JSON blocks; want the client entries", len(blocks))
	}
	var lines [][]string
	for i, b := range blocks {
		var doc map[string]json.RawMessage
		if err := json.Unmarshal([]byte(b), &doc); err != nil {
			t.Errorf("JSON block %d does not parse: %v\n%s", i+1, err, b)
			continue
		}
		for key, typed := range map[string]bool{"servers": true, "mcpServers": false} {
			raw, ok := doc[key]
			if !ok {
				continue
			}
			var servers map[string]clientEntry
			if err := json.Unmarshal(raw, &servers); err != nil {
				t.Errorf("JSON block %d: %s: %v", i+1, key, err)
				continue
			}
			for name, e := range servers {
				stdio := e.Command != ""
				switch {
				case stdio == (e.URL != ""):
					t.Errorf("JSON block %d: %s: want a command or a url", i+1, name)
				case typed && e.Type != map[bool]string{true: "stdio", false: "http"}[stdio]:
					t.Errorf("JSON block %d: %s: type %q does not match the entry", i+1, name, e.Type)
				case !typed && e.Type != "":
					t.Errorf("JSON block %d: %s: type %q in mcpServers", i+1, name, e.Type)
				}
				if e.Command == "shelter" {
					lines = append(lines, e.Args)
				}
			}
		}
	}
	for _, b := range fencedBlocks(t, mcpDoc, "sh") {
		for _, l := range strings.Split(b, "\n") {
			if _, cmd, ok := strings.Cut(l, "claude mcp add "); ok {
				if _, server, ok := strings.Cut(cmd, " -- "); ok {
					words := strings.Fields(server)
					if words[0] != "shelter" {
						t.Errorf("claude mcp add starts %q; want shelter", words[0])
						continue
					}
					lines = append(lines, words[1:])
				}
			}
		}
	}
	if len(lines) < 3 {
		t.Fatalf("%d shelter command lines found; want the stdio entries of Claude Desktop, VS Code and Claude Code", len(lines))
	}
	for _, args := range lines {
		if len(args) == 0 || args[0] != "serve" {
			t.Errorf("%q: want shelter serve", args)
			continue
		}
		var o options
		if rest, err := o.parseFlags("serve", slices.Clone(args[1:])); err != nil || len(rest) != 0 {
			t.Errorf("shelter %s: %v, words left %q", strings.Join(args, " "), err, rest)
		}
	}
}
