package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestConcurrentDispatchOneNameWins(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = ws.Dispatch(context.Background(), root, DispatchInput{Role: "compactor", Goal: "g", Name: "solo"})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		var taken *NameTakenError
		switch {
		case err == nil:
			won++
		case !errors.As(err, &taken):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d dispatches named solo succeeded, want 1", won)
	}
	agents, err := ws.Agents(context.Background())
	if err != nil || len(agents) != 2 {
		t.Errorf("agents %v, %v; want the root and one child", agents, err)
	}
}

func TestConcurrentLoadSkillOneCopy(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	dir := filepath.Join(ws.Dir, "skills", "notes")
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: notes\n---\n"), 0o644)
	const files = 50 // a copy takes long enough for the loads to overlap
	for i := range files {
		os.WriteFile(filepath.Join(dir, "scripts", fmt.Sprint(i, ".sh")), []byte("echo a\n"), 0o755)
	}
	const n = 8
	var wg sync.WaitGroup
	outs := make([]LoadSkillOutput, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = ws.LoadSkill(context.Background(), root, LoadSkillInput{Name: "notes"})
		}()
	}
	wg.Wait()
	loaded := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("load %d: %v", i, errs[i])
		}
		if outs[i].Status == "loaded" {
			loaded++
		}
	}
	if loaded != 1 {
		t.Errorf("%d loads answered loaded, want 1", loaded)
	}
	entries, _ := os.ReadDir(filepath.Join(ws.Worktree(root), "skills"))
	if len(entries) != 1 || entries[0].Name() != "notes" {
		t.Errorf("skills/ holds %v, want notes alone", entries)
	}
	if entries, _ := os.ReadDir(filepath.Join(ws.Worktree(root), "skills", "notes", "scripts")); len(entries) != files {
		t.Errorf("the copy holds %d scripts, want %d", len(entries), files)
	}
}
