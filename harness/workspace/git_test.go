package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Nothing of the host's git setup reaches the workspace's git: not its
// environment, not its global configuration, not its hooks.
func TestGitIgnoresTheHost(t *testing.T) {
	home := t.TempDir()
	hooks := filepath.Join(home, "hooks")
	os.MkdirAll(hooks, 0o755)
	marker := filepath.Join(home, "hook-ran")
	for _, h := range []string{"pre-commit", "post-commit", "post-checkout", "reference-transaction"} {
		os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	}
	gitconfig := "[user]\n\tname = host\n\temail = host@example.com\n[core]\n\thooksPath = " + hooks +
		"\n[commit]\n\tgpgSign = true\n[init]\n\tdefaultBranch = hostmain\n"
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	t.Setenv("GIT_DIR", filepath.Join(home, "nowhere"))
	t.Setenv("GIT_WORK_TREE", home)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(home, "index"))
	t.Setenv("GIT_AUTHOR_NAME", "host")
	t.Setenv("GIT_COMMITTER_NAME", "host")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
	t.Setenv("GIT_CONFIG_VALUE_0", hooks)

	ctx := context.Background()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	out, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: "g"})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range ws.git.env {
		if strings.HasPrefix(g, "GIT_DIR=") || strings.HasPrefix(g, "GIT_CONFIG_COUNT=") || g == "HOME="+home {
			t.Errorf("host variable in git's environment: %s", g)
		}
	}
	if got := git(t, ws, "", "log", "-1", "--format=%an <%ae> %cn <%ce>", agentRefs+out.Handle); got != "shelter <shelter@workspace.invalid> shelter <shelter@workspace.invalid>" {
		t.Errorf("identity %q", got)
	}
	if got := git(t, ws, "", "symbolic-ref", "HEAD"); got != "refs/heads/config/main" {
		t.Errorf("HEAD is %s", got)
	}
	if got := strings.Fields(git(t, ws, "", "for-each-ref", "--format=%(refname)")); !slices.Equal(got, []string{
		agentRefs + root, agentRefs + out.Handle, configRefs + "main",
	}) {
		t.Errorf("refs %q", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a host hook ran")
	}
	if _, err := os.Stat(filepath.Join(home, "nowhere")); err == nil {
		t.Error("git wrote to the host's GIT_DIR")
	}
}
