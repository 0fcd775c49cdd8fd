package wrapped_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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

// docCall finds the session line of docs/wrapped_command.md that starts
// with "$ "+prefix and returns its call and, from its "# runs:" comment,
// the argv the call runs (without the executable).
func docCall(t *testing.T, prefix string) (call string, runs []string) {
	t.Helper()
	data, err := os.ReadFile("../docs/wrapped_command.md")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, "$ "+prefix)
		if !ok {
			continue
		}
		call, comment, _ := strings.Cut(prefix+rest, "#")
		argv, ok := strings.CutPrefix(strings.TrimSpace(comment), "runs: ")
		if !ok {
			t.Fatalf("docs/wrapped_command.md: %q has no '# runs:' comment", line)
		}
		return strings.TrimSpace(call), strings.Fields(argv)[1:]
	}
	t.Fatalf("docs/wrapped_command.md: no session line starting with %q", "$ "+prefix)
	return "", nil
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

	// The repository's older docs commit is years old: the example's
	// --since leaves it out whatever today's date.
	call, runs := docCall(t, "git log -n")
	if plan, err := cmds["git"].Plan(strings.Fields(call)[1:], repo); err != nil {
		t.Errorf("%s: %v", call, err)
	} else if !slices.Equal(plan.Argv[1:], runs) {
		t.Errorf("%s: runs %q; the doc says %q", call, plan.Argv[1:], runs)
	}
	if res := run(t, s, call); res.ExitCode != 0 || !strings.HasSuffix(res.Stdout, " docs: add the guide\n") || strings.Count(res.Stdout, "\n") != 1 {
		t.Errorf("%s: exit %d stdout %q stderr %q", call, res.ExitCode, res.Stdout, res.Stderr)
	}
	for script, line := range map[string]string{
		"git log --output=/tmp/x": "git log: unknown flag '--output'; allowed: -n/--max-count, --oneline, --since",
		"git push":                "git: unknown verb 'push'; allowed: commit, log, status",
		"report /etc/passwd":      "report: script '/etc/passwd' is outside its directory; allowed: paths under " + filepath.Join(project, "scripts"),
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

// TestDocReachExample loads the example of "What a declaration may
// reach" in docs/wrapped_command.md, its cache moved to a directory that
// exists: download has the network and the cache, build the cache only,
// and the doc's load error is the loader's line for the same file whose
// download verb also names a cache that does not exist.
func TestDocReachExample(t *testing.T) {
	needProgram(t, "go")
	data, err := os.ReadFile("../docs/wrapped_command.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "## What a declaration may reach")
	_, rest, ok2 := strings.Cut(rest, "```yaml\n")
	block, _, ok3 := strings.Cut(rest, "```\n")
	if !ok || !ok2 || !ok3 || !strings.Contains(block, "/var/cache/gomod") {
		t.Fatal("no yaml block naming /var/cache/gomod under 'What a declaration may reach'")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	cache := filepath.Join(dir, "gomod")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(block, "/var/cache/gomod", cache)), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := wrapped.LoadFile(path, wrapped.LoadOptions{Path: os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	build, _ := list[0].Verb("build")
	download, _ := list[0].Verb("download")
	if build.Network() || !download.Network() || !slices.Equal(build.WritePaths(), []string{cache}) || !slices.Equal(download.WritePaths(), []string{cache}) {
		t.Errorf("build: %v %q; download: %v %q", build.Network(), build.WritePaths(), download.Network(), download.WritePaths())
	}
	if !strings.Contains(download.Help(), "\nnetwork: on\n") {
		t.Errorf("download help:\n%s", download.Help())
	}

	// The load error the doc shows, for the same file with a verb's cache
	// that does not exist.
	_, line, _ := strings.Cut(string(data), "\ntools.yaml:11:23: go download: ")
	line, _, _ = strings.Cut(line, "\n")
	line = "tools.yaml:11:23: go download: " + line
	src := strings.ReplaceAll(block, "/var/cache/gomod", cache)
	src = strings.Replace(src, "network: true", "network: true\n        write_paths: [/var/cache/gomod]", 1)
	if os.WriteFile(path, []byte(src), 0o644) != nil {
		t.Fatal("cannot write the file")
	}
	if _, err := os.Stat("/var/cache/gomod"); err == nil {
		t.Skip("/var/cache/gomod exists here")
	}
	_, err = wrapped.LoadFile(path, wrapped.LoadOptions{Path: os.Getenv("PATH")})
	if err == nil || !strings.HasSuffix(err.Error(), "/"+line) {
		t.Errorf("got %v, the doc says %s", err, line)
	}
}
