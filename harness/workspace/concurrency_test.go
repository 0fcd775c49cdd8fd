package workspace

import (
	"context"
	"errors"
	"sync"
	"testing"
)

func TestConcurrentDispatchOneNameWins(t *testing.T) {
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
