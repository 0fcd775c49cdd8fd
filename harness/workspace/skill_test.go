package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestLoadSkill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	for _, s := range []string{"notes", "bash"} {
		dir := filepath.Join(ws.Dir, "skills", s)
		os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+s+"\ndescription: d\n---\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	}
	os.MkdirAll(filepath.Join(ws.Dir, "skills", "not-a-skill"), 0o755) // no SKILL.md

	out, err := ws.LoadSkill(ctx, root, LoadSkillInput{Name: "notes"})
	if err != nil || out != (LoadSkillOutput{Status: "loaded", Path: "skills/notes"}) {
		t.Fatalf("LoadSkill = %+v, %v", out, err)
	}
	copied := filepath.Join(ws.Worktree(root), "skills", "notes")
	if fi, err := os.Stat(filepath.Join(copied, "scripts", "run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("copied script: %v, %v", fi, err)
	}

	// An existing copy is not touched.
	os.WriteFile(filepath.Join(copied, "SKILL.md"), []byte("edited"), 0o644)
	out, err = ws.LoadSkill(ctx, root, LoadSkillInput{Name: "notes"})
	if err != nil || out != (LoadSkillOutput{Status: "already_loaded", Path: "skills/notes"}) {
		t.Fatalf("second LoadSkill = %+v, %v", out, err)
	}
	if data, _ := os.ReadFile(filepath.Join(copied, "SKILL.md")); string(data) != "edited" {
		t.Errorf("existing copy changed: %q", data)
	}
	entries, _ := os.ReadDir(filepath.Join(ws.Worktree(root), "skills"))
	if len(entries) != 1 {
		t.Errorf("skills/ holds %v", entries)
	}

	_, err = ws.LoadSkill(ctx, root, LoadSkillInput{Name: "nope"})
	if want := `workspace: unknown skill 'nope'; allowed: bash, notes`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	os.RemoveAll(filepath.Join(ws.Dir, "skills"))
	_, err = ws.LoadSkill(ctx, root, LoadSkillInput{Name: "nope"})
	if want := `workspace: unknown skill 'nope'; allowed: (none)`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestLoadSkillNameRefusedBeforeFileAccess(t *testing.T) {
	t.Parallel()
	// A workspace with no directory and no git: any file or git access
	// would fail differently (or panic on the nil runner).
	ws := &Workspace{Dir: filepath.Join(t.TempDir(), "absent")}
	for _, name := range []string{"a/b", "../x", "..", ".", "", "/etc", "a\x00b"} {
		_, err := ws.LoadSkill(context.Background(), "20260101T000000Z-00000000", LoadSkillInput{Name: name})
		var bad *BadNameError
		if !asError(err, &bad) || bad.What != "skill name" {
			t.Errorf("LoadSkill(%q) = %v, want a BadNameError", name, err)
		}
	}
	_, err := ws.LoadSkill(context.Background(), "x", LoadSkillInput{Name: "a/b"})
	if want := `workspace: skill name 'a/b' is not a single path component; allowed: one directory of the pool`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
