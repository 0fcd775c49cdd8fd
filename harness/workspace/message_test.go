package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func inboxNames(t *testing.T, ws *Workspace, id string) []string {
	t.Helper()
	entries, err := os.ReadDir(ws.inbox(id))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestMessage(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	a, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: "a", Name: "scout"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: "b"})
	if err != nil {
		t.Fatal(err)
	}

	ws.Now = func() time.Time { return time.Date(2026, 3, 2, 9, 30, 0, 0, time.FixedZone("CET", 3600)) }
	send := func(caller, to, content string) {
		t.Helper()
		out, err := ws.Message(ctx, caller, MessageInput{Agent: to, Content: content})
		if err != nil || out.Status != "deposited" {
			t.Fatalf("Message(%q → %q) = %v, %v", caller, to, out, err)
		}
	}
	send(root, a.Handle, "by id")
	send(root, "scout", "by name")
	send(b.Handle, "scout", "from b")
	send("", "scout", "from the user")
	send(root, root, "to myself")

	want := []string{root + "-001.md", root + "-002.md", root + "-003.md", b.Handle + "-001.md", "user-001.md"}
	if got := inboxNames(t, ws, a.Handle); !slices.Equal(got, want) {
		t.Errorf("inbox %q\nwant %q", got, want)
	}
	for file, want := range map[string]string{
		root + "-003.md": "---\nfrom: " + root + "\ndeposited_at: 2026-03-02T08:30:00Z\n---\nby name",
		"user-001.md":    "---\nfrom: user\ndeposited_at: 2026-03-02T08:30:00Z\n---\nfrom the user",
	} {
		if data, err := os.ReadFile(filepath.Join(ws.inbox(a.Handle), file)); err != nil || string(data) != want {
			t.Errorf("%s = %q, %v\nwant %q", file, data, err, want)
		}
	}
	if got := inboxNames(t, ws, root); !slices.Equal(got, []string{root + "-001.md"}) {
		t.Errorf("root's inbox %q", got)
	}

	// Numbering continues past a delivered (removed) lower number and past
	// the highest present, whatever else the inbox holds, and never
	// overwrites.
	os.Remove(filepath.Join(ws.inbox(a.Handle), root+"-001.md"))
	os.WriteFile(filepath.Join(ws.inbox(a.Handle), root+"-007.md"), []byte("kept"), 0o644)
	os.WriteFile(filepath.Join(ws.inbox(a.Handle), root+"-x9.md"), []byte("kept"), 0o644)
	os.WriteFile(filepath.Join(ws.inbox(a.Handle), "user-012.md"), []byte("kept"), 0o644)
	send(root, a.Handle, "again")
	if data, err := os.ReadFile(filepath.Join(ws.inbox(a.Handle), root+"-008.md")); err != nil || !strings.HasSuffix(string(data), "\n---\nagain") {
		t.Errorf("%s-008.md: %q, %v", root, data, err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws.inbox(a.Handle), root+"-007.md")); string(data) != "kept" {
		t.Errorf("%s-007.md overwritten: %q", root, data)
	}

	// A caller that is no agent of the workspace sends nothing.
	before := snapshot(t, ws)
	_, err = ws.Message(ctx, "20990101T000000Z-00000000", MessageInput{Agent: a.Handle, Content: "x"})
	if want := `no agent "20990101T000000Z-00000000" in this workspace`; err == nil || err.Error() != want {
		t.Errorf("unknown caller: got %v, want %s", err, want)
	}
	sameState(t, before, snapshot(t, ws))

	// A second agent comes to wear "scout": the name is now ambiguous.
	dir := ws.Worktree(b.Handle)
	os.WriteFile(filepath.Join(dir, "name"), []byte("scout"), 0o644)
	git(t, ws, dir, "commit", "-q", "-am", "rename")

	ids := []string{a.Handle, b.Handle}
	slices.Sort(ids)
	for _, tt := range []struct{ to, want string }{
		{"scout", `agent name "scout" is ambiguous: worn by ` + ids[0] + `, ` + ids[1] + `; address one by id`},
		{"nosuch", `no agent "nosuch" in this workspace`},
		{"20990101T000000Z-00000000", `no agent "20990101T000000Z-00000000" in this workspace`},
		{"a/b", `agent "a/b" is not a single path component; address an agent by its id or by its name`},
		{"..", `agent ".." is not a single path component; address an agent by its id or by its name`},
	} {
		before := snapshot(t, ws)
		_, err := ws.Message(ctx, root, MessageInput{Agent: tt.to, Content: "x"})
		if err == nil || err.Error() != tt.want || !IsRefusal(err) {
			t.Errorf("Message(%q): got %v\nwant %s", tt.to, err, tt.want)
		}
		sameState(t, before, snapshot(t, ws))
	}
}

func TestLoadSkill(t *testing.T) {
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
	if want := `unknown skill "nope"; available: bash, notes`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	os.RemoveAll(filepath.Join(ws.Dir, "skills"))
	_, err = ws.LoadSkill(ctx, root, LoadSkillInput{Name: "nope"})
	if want := `unknown skill "nope"; available: (none)`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestLoadSkillNameRefusedBeforeFileAccess(t *testing.T) {
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
	if want := `skill name "a/b" is not a single path component; a skill is named by one directory of the pool`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
