package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDispatchCreatesChild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	ws.Now = func() time.Time { return time.Date(2026, 3, 1, 12, 0, 30, 0, time.UTC) }
	goal := "Write a haiku about git.\n\n  Keep it  *short*.  "
	out, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: goal, Name: "poet"})
	if err != nil {
		t.Fatal(err)
	}
	child := out.Handle
	if want := regexp.MustCompile(`^` + root + `-20260301T1200[0-9]{2}Z-[0-9a-f]{8}$`); !want.MatchString(child) {
		t.Fatalf("handle %q is not a child id of %s", child, root)
	}
	answer, _ := json.Marshal(out)
	if got, want := string(answer), `{"status":"in_progress","handle":"`+child+`"}`; got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
	if Parent(child) != root || Depth(child) != 1 {
		t.Errorf("Parent/Depth of %s = %q/%d", child, Parent(child), Depth(child))
	}

	// Branch and worktree.
	if got := git(t, ws, ws.Worktree(child), "rev-parse", "--abbrev-ref", "HEAD"); got != "agents/"+child {
		t.Errorf("worktree on %q, want agents/%s", got, child)
	}
	if got, want := git(t, ws, "", "log", "-1", "--format=%s", agentRefs+child), "dispatch: worker ["+child+"]"; got != want {
		t.Errorf("subject %q, want %q", got, want)
	}
	if got := git(t, ws, "", "rev-parse", agentRefs+child+"^"); got != git(t, ws, "", "rev-parse", agentRefs+root) {
		t.Errorf("child does not fork at the caller's tip")
	}
	if st := git(t, ws, ws.Worktree(child), "status", "--porcelain"); st != "" {
		t.Errorf("child worktree not clean: %q", st)
	}

	// The files, exact bytes, committed and checked out.
	soul := git(t, ws, "", "cat-file", "blob", "config/main:souls/worker.md")
	for file, want := range map[string]string{"goal.md": goal, "name": "poet", "soul.md": soul + "\n"} {
		got, err := os.ReadFile(filepath.Join(ws.Worktree(child), file))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", file, got, err, want)
		}
		committed, _ := ws.git.run(ctx, "", nil, "cat-file", "blob", agentRefs+child+":"+file)
		if string(committed) != want {
			t.Errorf("committed %s = %q, want %q", file, committed, want)
		}
	}

	// No control files; descriptors cut to worker's grant.
	files := treeFiles(t, ws, child)
	for _, f := range files {
		if f == "providers.yaml" || f == "workflow.yaml" || strings.HasPrefix(f, "souls/") {
			t.Errorf("control file %s in the child's tree", f)
		}
	}
	wantFiles := []string{
		"descriptions/skills/dispatch.md", "descriptions/skills/load_skill.md", "descriptions/skills/message.md",
		"descriptions/tools/dispatch.json", "descriptions/tools/load_skill.json", "descriptions/tools/message.json",
		"goal.md", "name", "soul.md",
	}
	if !slices.Equal(files, wantFiles) {
		t.Errorf("child tree %q, want %q", files, wantFiles)
	}

	// One inbox file, from the caller, holding the goal.
	entries, err := os.ReadDir(ws.inbox(child))
	if err != nil || len(entries) != 1 || entries[0].Name() != root+"-001.md" {
		t.Fatalf("inbox of child: %v, %v", entries, err)
	}
	msg, _ := os.ReadFile(filepath.Join(ws.inbox(child), entries[0].Name()))
	if want := "---\nfrom: " + root + "\ndeposited_at: 2026-03-01T12:00:30Z\n---\n" + goal; unsealed(t, msg) != want {
		t.Errorf("message %q\nwant    %q", msg, want)
	}
}

func TestDispatchRoleAddedByConfigCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := newWorkspace(t)
	editConfig(t, ws, "main", map[string]string{
		"providers.yaml": `roles:
  worker: {provider: p, model: m, tools: [message]}
  compactor: {provider: p, model: m, tools: [message]}
  verifier: {provider: p, model: m, tools: [message, load_skill]}
`,
		"souls/verifier.md": "You verify.\n",
	})
	root := newRoot(t, ws)
	out, err := ws.Dispatch(ctx, root, DispatchInput{Role: "verifier", Goal: "check it"})
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, ws, "", "log", "-1", "--format=%s", agentRefs+out.Handle); got != "dispatch: verifier ["+out.Handle+"]" {
		t.Errorf("subject %q", got)
	}
	soul, _ := os.ReadFile(filepath.Join(ws.Worktree(out.Handle), "soul.md"))
	if string(soul) != "You verify.\n" {
		t.Errorf("soul.md = %q", soul)
	}
	name, err := os.ReadFile(filepath.Join(ws.Worktree(out.Handle), "name"))
	if err != nil || len(name) != 0 {
		t.Errorf("name = %q, %v; want empty", name, err)
	}
}

func TestDispatchRefusalsLeaveNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := newWorkspace(t)
	editConfig(t, ws, "main", map[string]string{
		"providers.yaml": `roles:
  worker: {provider: p, model: m, tools: [message, dispatch]}
  compactor: {provider: p, model: m, tools: [message]}
  verifier: {provider: p, model: m, tools: [message]}
  sensor: {provider: p, model: m, tools: [slack_read]}
`,
		"workflow.yaml":                      "budgets: {max_depth: 2}\n",
		"souls/sensor.md":                    "sense\n",
		"descriptions/tools/dispatch.json":   "",
		"descriptions/tools/load_skill.json": "",
		"descriptions/tools/bash.json":       `{"type":"object"}`,
		"descriptions/skills/dispatch.md":    "",
	})
	root := newRoot(t, ws)
	first, err := ws.Dispatch(ctx, root, DispatchInput{Role: "compactor", Goal: "g", Name: "pale-otter"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := ws.Dispatch(ctx, first.Handle, DispatchInput{Role: "compactor", Goal: "g"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		caller string
		in     DispatchInput
		want   string
	}{
		{"unknown role", root, DispatchInput{Role: "ghost", Goal: "g"},
			`workspace: role 'ghost' is not defined in the providers.yaml governing agent '` + root + `'; allowed: compactor, sensor, verifier, worker`},
		{"no soul", root, DispatchInput{Role: "verifier", Goal: "g"},
			`workspace: role 'verifier' is defined but souls/verifier.md is missing from the config governing agent '` + root + `'; allowed: (none)`},
		{"undescribed grant", root, DispatchInput{Role: "sensor", Goal: "g"},
			`workspace: role 'sensor' grants tool 'slack_read', which its governing config does not describe; allowed: bash, message`},
		{"undescribed grant before depth", second.Handle, DispatchInput{Role: "worker", Goal: "g"},
			`workspace: role 'worker' grants tool 'dispatch', which its governing config does not describe; allowed: bash, message`},
		{"depth", second.Handle, DispatchInput{Role: "compactor", Goal: "g"},
			`workspace: a child of agent '` + second.Handle + `' would be at depth 3, over max_depth 2 set in the governing workflow.yaml; allowed: (none)`},
		{"taken name", root, DispatchInput{Role: "compactor", Goal: "g", Name: "pale-otter"},
			`workspace: name 'pale-otter' is taken by agent ` + first.Handle + `; allowed: a name no other agent wears`},
		{"slash in name", root, DispatchInput{Role: "compactor", Goal: "g", Name: "a/b"},
			`workspace: name 'a/b' is not a single path component; allowed: ` + nameAllow},
		{"dot-dot name", root, DispatchInput{Role: "compactor", Goal: "g", Name: ".."},
			`workspace: name '..' is not a single path component; allowed: ` + nameAllow},
		{"whitespace in name", root, DispatchInput{Role: "compactor", Goal: "g", Name: "pale otter"},
			`workspace: name 'pale otter' contains whitespace; allowed: ` + nameAllow},
		{"id-shaped name", root, DispatchInput{Role: "compactor", Goal: "g", Name: "20260101T000000Z-0badf00d"},
			`workspace: name '20260101T000000Z-0badf00d' is shaped like an agent id; allowed: ` + nameAllow},
		{"unknown caller", "20260101T000000Z-0badf00d", DispatchInput{Role: "compactor", Goal: "g"},
			`workspace: no agent '20260101T000000Z-0badf00d' in this workspace; allowed: a name an agent wears, an agent's id`},
		{"no caller", "", DispatchInput{Role: "compactor", Goal: "g"},
			`workspace: no calling agent; allowed: a session started with --workspace W --agent ID`},
		{"empty goal", root, DispatchInput{Role: "compactor"},
			`workspace: 'goal' is empty; allowed: a non-empty goal`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, ws)
			_, err := ws.Dispatch(ctx, tt.caller, tt.in)
			if err == nil {
				t.Fatal("dispatch succeeded")
			}
			if err.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
			if !IsRefusal(err) {
				t.Errorf("%T is not a refusal", err)
			}
			sameState(t, before, snapshot(t, ws))
		})
	}
}

func TestDispatchGrantCut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := newWorkspace(t)
	schema := func(name string) string { return `{"type":"object","title":"` + name + `"}` }
	editConfig(t, ws, "main", map[string]string{
		"providers.yaml": `roles:
  worker: {provider: p, model: m, tools: [message]}
  compactor: {provider: p, model: m, tools: []}
  pair: {provider: p, model: m, tools: [beta, delta]}
  lead: {provider: p, model: m, tools: [dispatch]}
`,
		"souls/pair.md":                      "pair\n",
		"souls/lead.md":                      "lead\n",
		"descriptions/tools/alpha.json":      schema("alpha"),
		"descriptions/tools/beta.json":       schema("beta"),
		"descriptions/tools/gamma.json":      schema("gamma"),
		"descriptions/tools/delta.json":      schema("delta"),
		"descriptions/tools/epsilon.json":    schema("epsilon"),
		"descriptions/skills/alpha.md":       "---\nname: alpha\n---\n",
		"descriptions/skills/beta.md":        "---\nname: beta\n---\n",
		"descriptions/skills/notes.md":       "---\nname: notes\n---\n",
		"descriptions/tools/load_skill.json": "",
		"descriptions/skills/load_skill.md":  "",
		"descriptions/skills/dispatch.md":    "",
		"descriptions/skills/message.md":     "",
	})
	root := newRoot(t, ws)

	// Five described tools here (alpha…epsilon) besides dispatch and
	// message; a grant of two.
	pair, err := ws.Dispatch(ctx, root, DispatchInput{Role: "pair", Goal: "g"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"descriptions/skills/beta.md", "descriptions/skills/notes.md",
		"descriptions/tools/beta.json", "descriptions/tools/delta.json",
		"goal.md", "name", "soul.md",
	}
	if got := treeFiles(t, ws, pair.Handle); !slices.Equal(got, want) {
		t.Errorf("pair's tree %q\nwant %q", got, want)
	}

	// A lead's grant lacks message; its worker child still gets message,
	// from the governing config, not from the lead's tree — even when the
	// lead commits its own version of a descriptor.
	lead, err := ws.Dispatch(ctx, root, DispatchInput{Role: "lead", Goal: "g"})
	if err != nil {
		t.Fatal(err)
	}
	leadTree := treeFiles(t, ws, lead.Handle)
	if slices.Contains(leadTree, "descriptions/tools/message.json") {
		t.Fatalf("lead's tree has message.json: %q", leadTree)
	}
	dir := ws.Worktree(lead.Handle)
	os.WriteFile(filepath.Join(dir, "descriptions/tools/dispatch.json"), []byte(`{"tampered":true}`), 0o644)
	os.WriteFile(filepath.Join(dir, "descriptions/tools/message.json"), []byte(`{"tampered":true}`), 0o644)
	git(t, ws, dir, "add", "descriptions")
	git(t, ws, dir, "commit", "-q", "-m", "lead edits descriptors")

	worker, err := ws.Dispatch(ctx, lead.Handle, DispatchInput{Role: "worker", Goal: "g"})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"descriptions/skills/notes.md", "descriptions/tools/message.json", "goal.md", "name", "soul.md"}
	if got := treeFiles(t, ws, worker.Handle); !slices.Equal(got, want) {
		t.Errorf("worker's tree %q\nwant %q", got, want)
	}
	got, _ := os.ReadFile(filepath.Join(ws.Worktree(worker.Handle), "descriptions/tools/message.json"))
	if string(got) != MessageSchema {
		t.Errorf("worker's message.json = %q, want the governing config's", got)
	}
}

func TestDispatchRefusedByItsConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  string // %s is the caller
	}{
		{"max_depth 0 allows no child", map[string]string{"workflow.yaml": "budgets: {max_depth: 0}\n"},
			`workspace: a child of agent '%s' would be at depth 1, over max_depth 0 set in the governing workflow.yaml; allowed: (none)`},
		{"unknown key in providers.yaml", map[string]string{"providers.yaml": "roles:\n  worker: {provider: p, colour: red}\n"},
			`workspace: providers.yaml in the config governing agent '%s' is invalid: yaml: unmarshal errors: line 2: field colour not found in type workspace.Role; allowed: (none)`},
		{"negative max_depth", map[string]string{"workflow.yaml": "budgets: {max_depth: -1}\n"},
			`workspace: workflow.yaml in the config governing agent '%s' is invalid: budgets.max_depth is -1; give 0 or more, or leave it out for no limit; allowed: (none)`},
		{"no providers.yaml", map[string]string{"providers.yaml": ""},
			`workspace: role 'worker' is not defined in the providers.yaml governing agent '%s'; allowed: (none)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t)
			editConfig(t, ws, "main", tt.files)
			root := newRoot(t, ws)
			before := snapshot(t, ws)
			_, err := ws.Dispatch(context.Background(), root, DispatchInput{Role: "worker", Goal: "g"})
			if want := fmt.Sprintf(tt.want, root); err == nil || err.Error() != want || !IsRefusal(err) {
				t.Errorf("got  %v\nwant %s", err, want)
			}
			sameState(t, before, snapshot(t, ws))
		})
	}
}

func TestDispatchWithoutMaxDepthHasNoLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := newWorkspace(t)
	editConfig(t, ws, "main", map[string]string{"workflow.yaml": ""})
	id := newRoot(t, ws)
	for range 6 {
		out, err := ws.Dispatch(ctx, id, DispatchInput{Role: "worker", Goal: "g"})
		if err != nil {
			t.Fatal(err)
		}
		id = out.Handle
	}
	if Depth(id) != 6 {
		t.Errorf("depth %d, want 6", Depth(id))
	}
}

func TestDispatchFailedWriteIsUndone(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	// The inbox cannot be made: the last write fails after the branch and
	// the worktree exist.
	inbox := filepath.Join(ws.Dir, "inbox")
	if err := os.RemoveAll(inbox); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inbox, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, ws)
	_, err := ws.Dispatch(context.Background(), root, DispatchInput{Role: "worker", Goal: "g"})
	if err == nil || IsRefusal(err) {
		t.Fatalf("got %v, want a failure", err)
	}
	sameState(t, before, snapshot(t, ws))
	if entries, _ := os.ReadDir(filepath.Join(ws.Dir, "agents")); len(entries) != 1 {
		t.Errorf("agents/ holds %v, want the root alone", entries)
	}
}
