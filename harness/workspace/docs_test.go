package workspace

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The shell blocks of docs/workspace.md are what cmd/shelter's
// testscripts run, word for word.
func TestDocsWalkthrough(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../docs/workspace.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, tt := range []struct {
		after, script, file string
	}{
		{"## Walk-through\n", "workspace.txtar", "walkthrough.sh"},
		{"To change the config,", "workspace_config.txtar", "config.sh"},
	} {
		_, rest, ok := strings.Cut(doc, tt.after)
		if !ok {
			t.Fatalf("docs/workspace.md has no %q", tt.after)
		}
		_, block, ok := strings.Cut(rest, "```sh\n")
		if !ok {
			t.Fatalf("no sh block after %q", tt.after)
		}
		block, _, _ = strings.Cut(block, "```\n")
		if got := txtarFile(t, tt.script, tt.file); got != block {
			t.Errorf("%s of %s differs from docs/workspace.md:\n%s\nwant:\n%s", tt.file, tt.script, got, block)
		}
	}
	// The refused dispatch the walk-through shows is refuse.sh's.
	refuse := strings.Split(strings.TrimSpace(txtarFile(t, "workspace.txtar", "refuse.sh")), "\n")
	if last := refuse[len(refuse)-1]; !strings.Contains(doc, "\n$ "+last+"\n") {
		t.Errorf("docs/workspace.md does not show %q", last)
	}
}

// txtarFile returns file of cmd/shelter's testscript script.
func txtarFile(t *testing.T, script, file string) string {
	t.Helper()
	ar, err := txtar.ParseFile("../../cmd/shelter/testdata/script/" + script)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == file {
			return string(f.Data)
		}
	}
	t.Fatalf("%s has no file %s", script, file)
	return ""
}

// The lines docs/workspace.md shows for a changed repository and a tool
// outside the grant are the errors' own.
func TestDocsIntegrityLines(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../docs/workspace.md")
	if err != nil {
		t.Fatal(err)
	}
	changed := &RepoChangedError{File: "repo.git/config", Change: lineChange(repoConfig, repoConfig+"[filter \"x\"]\n")}
	notGranted := &NotGrantedError{Tool: "dispatch", Agent: "<id>", Role: "compactor", Granted: []string{"message"}}
	viaNew, _ := AsRefusal("shelter workspace new", changed)
	for _, line := range []string{viaNew.Error(), notGranted.Error()} {
		if !strings.Contains(string(data), line) {
			t.Errorf("docs/workspace.md does not show %q", line)
		}
	}
}
