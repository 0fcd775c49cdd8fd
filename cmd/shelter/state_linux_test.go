package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stateGo is an agent's Go test that writes where programs keep their
// state: a temporary file and a cache under HOME, as pip's or git's.
const stateGo = `package m

import (
	"os"
	"path/filepath"
	"testing"
)

func TestState(t *testing.T) {
	f, err := os.CreateTemp("", "state-")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.MkdirAll(filepath.Join(os.Getenv("HOME"), ".cache", "m"), 0o755); err != nil {
		t.Fatal(err)
	}
}
`

// TestSandboxStateOutOfGit runs `go test ./...` of a git repository
// through the declared go in a sandbox rooted at it, and finds the
// repository's status clean afterwards: HOME, $TMPDIR and the spill
// directory are in ROOT/.shelter, which git ignores (docs/sandbox.md).
func TestSandboxStateOutOfGit(t *testing.T) {
	lookSystem(t, "go")
	git := lookSystem(t, "git")
	repo := t.TempDir()
	os.Chmod(repo, 0o755)
	for name, content := range map[string]string{
		"go.mod":        "module m\n\ngo 1.26\n",
		"state_test.go": stateGo,
	} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = []string{"HOME=" + repo, "GIT_CONFIG_NOSYSTEM=1"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitRun("init", "-q")
	gitRun("add", "-A")
	gitRun("commit", "-q", "-m", "init")

	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache := strings.TrimSpace(string(gocache)) // shared, as TestConfineGoTest does: a cold one compiles for long
	homes := map[string]bool{}
	for range 2 {
		out, status := shelterRun(t, repo, nil, "--profile", "sandbox", "--tools", goDecl(t, t.TempDir()), "--confine", "best-effort", "--timeout", "15m",
			"--allow-write", cache, "--env", "GOCACHE="+cache, "--env", "GOTOOLCHAIN=local", "--env", "GOFLAGS=-count=1",
			"-c", `go test ./... && echo x > "$TMPDIR/t" && mkdir -p ~/.config/agent && ls -A ~/.cache && echo "home=$HOME"`)
		if status != 0 || !strings.Contains(out, "ok  \tm") || !strings.Contains(out, "\nm\n") {
			t.Fatalf("status %d; the test did not pass or wrote no cache under HOME:\n%s", status, out)
		}
		_, home, _ := strings.Cut(out, "home=")
		home = strings.TrimSpace(home)
		if !strings.HasPrefix(home, filepath.Join(repo, ".shelter")+"/") || homes[home] {
			t.Errorf("HOME %q: want one of the session's own, in ROOT/.shelter (had %v)", home, homes)
		}
		homes[home] = true
		if _, err := os.Lstat(home); err == nil {
			t.Errorf("HOME %s is left after the session", home)
		}
		if st := gitRun("status", "--porcelain", "--untracked-files=all", "--ignored=no"); st != "" {
			t.Errorf("git status after the session:\n%s", st)
		}
	}
}
