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
	t.Parallel()
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
