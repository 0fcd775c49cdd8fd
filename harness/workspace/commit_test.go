package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestImportPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"descriptions/tools/bash.json", "descriptions/tools/bash.json"},
		{"with space/and\\back\"quote", "with space/and\\back\"quote"},
		{`"leading`, `"\"leading"`},
		{"line\nbreak\\", `"line\nbreak\\"`},
	} {
		if got := importPath(tt.in); got != tt.want {
			t.Errorf("importPath(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// The dispatch commit is built from a text stream: names and contents that
// look like its syntax must arrive as they are.
func TestDispatchOddNamesAndContents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := newWorkspace(t)
	odd := []string{`"quoted`, "line\nbreak", `back\slash`, "sp ace"}
	files := map[string]string{
		"providers.yaml": "roles:\n  worker: {tools: ['\"quoted', \"line\\nbreak\", 'back\\slash', 'sp ace']}\n",
	}
	for _, name := range odd {
		files["descriptions/tools/"+name+".json"] = `{"title":` + name + `}`
		files["descriptions/skills/"+name+".md"] = "skill " + name
	}
	editConfig(t, ws, "main", files)
	root := newRoot(t, ws)

	// The root's tree carries goal.md as a directory and name as a
	// symlink: the child's are regular files all the same.
	dir := ws.Worktree(root)
	os.MkdirAll(filepath.Join(dir, "goal.md"), 0o755)
	os.WriteFile(filepath.Join(dir, "goal.md", "inner"), []byte("x"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "name"))
	git(t, ws, dir, "add", "goal.md", "name")
	git(t, ws, dir, "commit", "-q", "-m", "odd tree")

	goal := "data 3\nabc\ndone\n\"\x00M 100644 inline x\n"
	out, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: goal, Name: `we"ird`})
	if err != nil {
		t.Fatal(err)
	}
	child := out.Handle
	for _, name := range odd {
		for _, f := range []string{"descriptions/tools/" + name + ".json", "descriptions/skills/" + name + ".md"} {
			got, err := ws.git.run(ctx, "", nil, "cat-file", "blob", agentRefs+child+":"+f)
			if err != nil || string(got) != files[f] {
				t.Errorf("%q = %q, %v; want %q", f, got, err, files[f])
			}
		}
	}
	for file, want := range map[string]string{"goal.md": goal, "name": `we"ird`} {
		got, err := os.ReadFile(filepath.Join(ws.Worktree(child), file))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", file, got, err, want)
		}
		if fi, err := os.Lstat(filepath.Join(ws.Worktree(child), file)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s is not a regular file: %v", file, err)
		}
	}
	if got := git(t, ws, "", "ls-tree", "--name-only", agentRefs+child, "goal.md/"); got != "" {
		t.Errorf("goal.md/ still in the child's tree: %q", got)
	}
	if st := git(t, ws, ws.Worktree(child), "status", "--porcelain"); st != "" {
		t.Errorf("child worktree not clean: %q", st)
	}
	if got := len(treeFiles(t, ws, child)); got != 2*len(odd)+3 {
		t.Errorf("child tree has %d files: %q", got, treeFiles(t, ws, child))
	}
	if !slices.Contains(treeFiles(t, ws, child), "soul.md") {
		t.Error("no soul.md")
	}
}
