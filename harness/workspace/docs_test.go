package workspace

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The walk-through of docs/workspace.md is what cmd/shelter's testscript
// runs, word for word.
func TestDocsWalkthrough(t *testing.T) {
	doc, err := os.ReadFile("../../docs/workspace.md")
	if err != nil {
		t.Fatal(err)
	}
	_, walk, ok := strings.Cut(string(doc), "## Walk-through\n")
	if !ok {
		t.Fatal("docs/workspace.md has no ## Walk-through")
	}
	_, block, ok := strings.Cut(walk, "```sh\n")
	if !ok {
		t.Fatal("the walk-through has no sh block")
	}
	block, _, _ = strings.Cut(block, "```\n")

	ar, err := txtar.ParseFile("../../cmd/shelter/testdata/script/workspace.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	if files["walkthrough.sh"] != block {
		t.Errorf("walkthrough.sh of workspace.txtar differs from the walk-through:\n%s\nwant:\n%s", files["walkthrough.sh"], block)
	}
	refuse := files["refuse.sh"]
	if i := strings.LastIndex(strings.TrimSuffix(refuse, "\n"), "\n"); i >= 0 {
		refuse = refuse[i+1:]
	}
	if !strings.Contains(walk, "$ "+refuse) {
		t.Errorf("the walk-through does not show the refused dispatch that refuse.sh runs: %q", refuse)
	}
}
