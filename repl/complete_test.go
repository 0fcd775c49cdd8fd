package repl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

func TestComplete(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "main.go"), nil, 0o644)
	cmds, err := wrapped.LoadFile(filepath.Join("..", "examples", "tools.yaml"), wrapped.LoadOptions{Path: os.Getenv("PATH")})
	if err != nil {
		t.Skipf("examples/tools.yaml: %v", err)
	}
	cfg, _ := kernel.Preset(kernel.ProfileHost)
	for _, c := range cmds {
		cfg.Tools = append(cfg.Tools, c)
	}
	k, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, Env: map[string]string{"REPL_TEST_VAR": "1", "PATH": os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Run(t.Context(), "greet() { :; }", kernel.RunOptions{})

	for _, tc := range []struct {
		line string
		want []string // words that must be offered
		not  []string // words that must not
	}{
		{"git sta", []string{"status"}, []string{"state"}},
		{"git status --porc", []string{"--porcelain"}, nil},
		{"git log -", []string{"--oneline", "-n", "--max-count"}, []string{"--porcelain"}},
		{"git -", []string{"--version"}, nil},
		{"cat no", []string{"notes.txt"}, nil},
		{"cat src/", []string{"src/main.go"}, nil},
		{"ls s", []string{"src/"}, nil},
		{"gre", []string{"greet", "grep"}, nil},
		{"echo hi | gi", []string{"git"}, nil},
		{"echo $REPL_T", []string{"$REPL_TEST_VAR"}, nil},
		{"echo ${HO", []string{"${HOME}"}, nil},
		{"X=1 ec", []string{"echo"}, nil},
	} {
		word, cands := Complete(s, tc.line, len([]rune(tc.line)))
		var got []string
		for _, c := range cands {
			got = append(got, c.Word)
			if !strings.HasPrefix(c.Word, word) {
				t.Errorf("%q: candidate %q does not start with the word %q", tc.line, c.Word, word)
			}
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %q not offered; got %q", tc.line, w, got)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("%q: %q offered; got %q", tc.line, w, got)
			}
		}
	}
}
