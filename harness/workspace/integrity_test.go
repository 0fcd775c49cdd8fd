package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each vector plants, as an agent's shell or its git could, something that
// would make shelter's own git run a program: the program touches a
// marker. Every operation that runs git must refuse, naming the file, and
// the marker must never appear.
func TestPlantedGitVectorsNeverRun(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	repo := filepath.Join(ws.Dir, "repo.git")
	marker := filepath.Join(t.TempDir(), "marker")
	run := fmt.Sprintf("touch %s; cat", marker)

	// The agent's own tree names a filter; nothing defines it yet.
	wt := ws.Worktree(root)
	writeFile(t, filepath.Join(wt, ".gitattributes"), "* filter=x\n")
	git(t, ws, wt, "add", ".gitattributes")
	git(t, ws, wt, "commit", "-q", "-m", "attributes")

	appendConfig := func(text string) func(t *testing.T) {
		return func(t *testing.T) {
			f, err := os.OpenFile(filepath.Join(repo, "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(text); err != nil {
				t.Fatal(err)
			}
		}
	}
	included := filepath.Join(t.TempDir(), "included")
	writeFile(t, included, fmt.Sprintf("[filter \"x\"]\n\tsmudge = %s\n[core]\n\tfsmonitor = %s\n", run, run))

	for _, tt := range []struct {
		name  string
		plant func(t *testing.T)
		file  string
		line  string
	}{
		{"filter in config", func(t *testing.T) {
			appendConfig(fmt.Sprintf("[filter \"x\"]\n\tsmudge = %s\n", run))(t)
			writeFile(t, filepath.Join(repo, "info", "attributes"), "* filter=x\n")
		}, "repo.git/config", `workspace: repo.git/config was changed outside shelter (line 5 "[filter \"x\"]" was added), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)`},
		{"include.path", appendConfig("[include]\n\tpath = " + included + "\n"),
			"repo.git/config", `workspace: repo.git/config was changed outside shelter (line 5 "[include]" was added), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)`},
		{"includeIf", appendConfig("[includeIf \"gitdir:/\"]\n\tpath = " + included + "\n"),
			"repo.git/config", `workspace: repo.git/config was changed outside shelter (line 5 "[includeIf \"gitdir:/\"]" was added), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)`},
		{"fsmonitor", func(t *testing.T) {
			data := strings.Replace(repoConfig, "\tbare = true\n", "\tbare = true\n\tfsmonitor = "+run+"\n", 1)
			writeFile(t, filepath.Join(repo, "config"), data)
		}, "repo.git/config", fmt.Sprintf(`workspace: repo.git/config was changed outside shelter (line 5 "fsmonitor = %s" was added), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)`, run)},
		{"attributes in info", func(t *testing.T) {
			writeFile(t, filepath.Join(repo, "info", "attributes"), "* filter=x diff=x merge=x\n")
		}, "repo.git/info/attributes", "workspace: repo.git/info/attributes was changed outside shelter (the file was added), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)"},
		{"filter for the agent's .gitattributes, defined by its git", func(t *testing.T) {
			// What a git the agent may run in its worktree writes.
			if _, err := ws.git.spawn(ctx, wt, nil, "config", "filter.x.smudge", run); err != nil {
				t.Fatal(err)
			}
		}, "repo.git/config", `workspace: repo.git/config was changed outside shelter (line 5 "[filter \"x\"]" was added), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)`},
		{"worktree config switched on", func(t *testing.T) {
			if _, err := ws.git.spawn(ctx, wt, nil, "config", "extensions.worktreeConfig", "true"); err != nil {
				t.Fatal(err)
			}
			if _, err := ws.git.spawn(ctx, wt, nil, "config", "--worktree", "filter.x.smudge", run); err != nil {
				t.Fatal(err)
			}
		}, "repo.git/config", `workspace: repo.git/config was changed outside shelter (line 5 "[extensions]" was added), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)`},
		{"commondir", func(t *testing.T) {
			writeFile(t, filepath.Join(repo, "commondir"), t.TempDir()+"\n")
		}, "repo.git/commondir", "workspace: repo.git/commondir was changed outside shelter (the file was added), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)"},
		{"config a symlink", func(t *testing.T) {
			writeFile(t, included+".target", repoConfig)
			os.Remove(filepath.Join(repo, "config"))
			if err := os.Symlink(included+".target", filepath.Join(repo, "config")); err != nil {
				t.Fatal(err)
			}
		}, "repo.git/config", "workspace: repo.git/config was changed outside shelter (it is a symbolic link, not a regular file), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, ws)
			tt.plant(t)
			ops := []struct {
				name string
				op   func() error
			}{
				{"dispatch", func() error {
					_, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: "g"})
					return err
				}},
				{"message", func() error {
					_, err := ws.Message(ctx, root, MessageInput{Agent: root, Content: "hi"})
					return err
				}},
				{"new", func() error { _, err := ws.NewAgent(ctx, ""); return err }},
				{"list", func() error { _, err := ws.List(ctx); return err }},
				{"session", func() error { _, _, _, err := ws.Session(ctx, root); return err }},
			}
			for _, o := range ops {
				err := o.op()
				var changed *RepoChangedError
				if !errors.As(err, &changed) || changed.File != tt.file || err.Error() != tt.line {
					t.Errorf("%s: got %v, want %s", o.name, err, tt.line)
				}
				if !IsRefusal(err) {
					t.Errorf("%s: %v is not a refusal", o.name, err)
				}
			}
			if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the planted program ran: %v", err)
			}
			restoreRepo(t, repo)
			sameState(t, before, snapshot(t, ws))
		})
	}

	// Restored, the tree's attribute names a filter nothing defines; a
	// worktree's config.worktree without the extension is not read; and
	// a .git planted in repo.git does not lead git to another repository
	// (shelter names the repository in GIT_DIR): all are ignored, and a
	// dispatch checks out the tree unfiltered.
	writeFile(t, filepath.Join(repo, "worktrees", root, "config.worktree"), fmt.Sprintf("[filter \"x\"]\n\tsmudge = %s\n", run))
	evil := filepath.Join(t.TempDir(), "evil.git")
	if err := os.CopyFS(evil, os.DirFS(repo)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(evil, "config"), repoConfig+fmt.Sprintf("[filter \"x\"]\n\tsmudge = %s\n", run))
	writeFile(t, filepath.Join(repo, ".git"), "gitdir: "+evil+"\n")
	out, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(ws.Worktree(out.Handle), ".gitattributes")); got != "* filter=x\n" {
		t.Errorf(".gitattributes = %q", got)
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the planted program ran: %v", err)
	}
}

// The vectors are live: git run without the check runs the planted
// filter. Without this, the test above could pass against a git that
// never ran it.
func TestPlantedFilterRunsWithoutTheCheck(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	repo := filepath.Join(ws.Dir, "repo.git")
	marker := filepath.Join(t.TempDir(), "marker")
	writeFile(t, filepath.Join(repo, "info", "attributes"), "* filter=x\n")
	if _, err := ws.git.spawn(ctx, "", nil, "config", "filter.x.smudge", "touch "+marker+"; cat"); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.git.spawn(ctx, "", nil, "worktree", "add", "-q", "--detach", filepath.Join(t.TempDir(), "wt"), agentRefs+root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the filter did not run without the check: %v", err)
	}
}

// A workspace made before shelter wrote its repository without a template
// has git's commented info/exclude; it passes, patterns in it do not.
func TestTemplateExcludeAllowed(t *testing.T) {
	ws := newWorkspace(t)
	repo := filepath.Join(ws.Dir, "repo.git")
	exclude := filepath.Join(repo, "info", "exclude")
	writeFile(t, exclude, "# git ls-files --others --exclude-from=.git/info/exclude\n# Lines that start with '#' are comments.\n")
	if err := checkRepo(repo); err != nil {
		t.Fatal(err)
	}
	writeFile(t, exclude, "*\n")
	const want = "workspace: repo.git/info/exclude was changed outside shelter (it holds patterns; only git's commented template is allowed), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)"
	if err := checkRepo(repo); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestLineChange(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{repoConfig + "x\n", `line 5 "x" was added`},
		{strings.TrimSuffix(repoConfig, "\tbare = true\n"), `line 4 "bare = true" is missing`},
		{strings.Replace(repoConfig, "bare = true", "bare = false", 1), `line 4 is "bare = false" where shelter wrote "bare = true"`},
		{strings.TrimSuffix(repoConfig, "\n"), "its line breaks differ"},
	} {
		if got := lineChange(repoConfig, tt.got); got != tt.want {
			t.Errorf("lineChange(%q) = %s, want %s", tt.got, got, tt.want)
		}
	}
}

// restoreRepo puts back the repository files shelter wrote.
func restoreRepo(t *testing.T, repo string) {
	t.Helper()
	os.Remove(filepath.Join(repo, "config"))
	writeFile(t, filepath.Join(repo, "config"), repoConfig)
	for _, name := range []string{"info", "commondir", "config.worktree"} {
		if err := os.RemoveAll(filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
