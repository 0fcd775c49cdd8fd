package wrapped_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// docExample extracts the first yaml block after the "A complete example"
// heading of docs/wrapped_command.md.
func docExample(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../docs/wrapped_command.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "## A complete example")
	if !ok {
		t.Fatal("no complete example in docs/wrapped_command.md")
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("no yaml block in the complete example")
	}
	return block
}

func TestDocExample(t *testing.T) {
	for _, p := range []string{"git", "go", "python3"} {
		needProgram(t, p)
	}
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "tools.yaml"), []byte(docExample(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(project, "scripts"), 0o755)
	os.WriteFile(filepath.Join(project, "scripts", "weekly.py"), []byte("import sys\nprint(' '.join(sys.argv[1:]))\n"), 0o644)
	list, err := wrapped.LoadFile(filepath.Join(project, "tools.yaml"), wrapped.LoadOptions{Path: os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	cmds := map[string]*wrapped.Command{}
	for _, c := range list {
		cmds[c.Name()] = c
	}
	repo := gitRepo(t)
	s := newSession(t, kernel.Config{Env: gitEnv}, repo, cmds)

	if res := run(t, s, "git log -n 5 --oneline --since=2d main -- docs"); res.ExitCode != 0 || !strings.HasSuffix(res.Stdout, "docs: add the guide\n") {
		t.Errorf("git log: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	for script, line := range map[string]string{
		"git log --output=/tmp/x": "git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since",
		"git push":                "git: unexpected argument 'push'",
		"report /etc/passwd":      "report: 'script' must be under " + filepath.Join(project, "scripts") + "; got '/etc/passwd'",
	} {
		if res := run(t, s, script); !res.Rejected || res.Issues[0].Message != line {
			t.Errorf("%s: %+v", script, res.Issues)
		}
	}
	res := run(t, s, "report "+filepath.Join(project, "scripts/weekly.py")+" -- --since 7d")
	if res.ExitCode != 0 || res.Stdout != "-- --since 7d\n" {
		t.Errorf("report: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(t, s, "goenv GOOS")
	var data map[string]string
	if res.ExitCode != 0 || json.Unmarshal(res.Data, &data) != nil || data["GOOS"] != runtime.GOOS {
		t.Errorf("goenv: exit %d data %s stderr %q", res.ExitCode, res.Data, res.Stderr)
	}
}
