package workspace

import (
	"context"
	"testing"
)

func TestGoverningConfig(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := newWorkspace(t)
	initial := git(t, ws, "", "rev-parse", "config/main")
	root := newRoot(t, ws)

	// A config commit made after the root forked does not govern it.
	editConfig(t, ws, "main", map[string]string{
		"providers.yaml": "roles:\n  worker: {tools: [message]}\n  compactor: {tools: [message]}\n  late: {tools: []}\n",
		"souls/late.md":  "late\n",
	})
	gov, err := ws.Governing(ctx, root)
	if err != nil || gov != initial {
		t.Fatalf("Governing = %s, %v; want the fork point %s", gov, err, initial)
	}
	_, err = ws.Dispatch(ctx, root, DispatchInput{Role: "late", Goal: "g"})
	want := `workspace: role 'late' is not defined in the providers.yaml governing agent '` + root + `'; allowed: compactor, worker`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	// A root made now is governed by the new commit, and so is its child.
	later := newRoot(t, ws)
	out, err := ws.Dispatch(ctx, later, DispatchInput{Role: "late", Goal: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if gov, _ := ws.Governing(ctx, out.Handle); gov != git(t, ws, "", "rev-parse", "config/main") {
		t.Errorf("child governed by %s, want config/main's tip", gov)
	}

	// Of ancestor-related merge bases the descendant-most wins.
	git(t, ws, "", "branch", "config/next", "config/main")
	next := editConfig(t, ws, "next", map[string]string{"workflow.yaml": "budgets: {max_depth: 1}\n"})
	onNext, err := ws.NewAgent(ctx, "next")
	if err != nil {
		t.Fatal(err)
	}
	if gov, err := ws.Governing(ctx, onNext); err != nil || gov != next {
		t.Errorf("Governing = %s, %v; want config/next's tip %s", gov, err, next)
	}

	// Two unrelated config branches that both reach an agent: an error
	// naming the agent.
	editConfig(t, ws, "other", map[string]string{"providers.yaml": "roles: {}\n"})
	git(t, ws, ws.Worktree(root), "merge", "-q", "-s", "ours", "--allow-unrelated-histories", "-m", "merge other", "config/other")
	_, err = ws.Governing(ctx, root)
	want = `workspace: agent '` + root + `' has no single governing config: config/main, config/next, config/other reach it through unrelated commits; allowed: a fork from one, a merge of them`
	if err == nil || err.Error() != want || !IsRefusal(err) {
		t.Errorf("got %v\nwant %s", err, want)
	}
	before := snapshot(t, ws)
	if _, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: "g"}); err == nil || err.Error() != want {
		t.Errorf("dispatch: got %v\nwant %s", err, want)
	}
	sameState(t, before, snapshot(t, ws))

	// No config branch reaches it.
	git(t, ws, "", "branch", "-D", "config/other", "config/main", "config/next")
	_, err = ws.Governing(ctx, root)
	want = `workspace: agent '` + root + `' has no governing config: no config/* branch reaches its branch; allowed: (none)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestNewAgentUnknownConfig(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	before := snapshot(t, ws)
	_, err := ws.NewAgent(context.Background(), "nope")
	if want := `workspace: no config 'nope' in this workspace; allowed: main`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	sameState(t, before, snapshot(t, ws))
}
