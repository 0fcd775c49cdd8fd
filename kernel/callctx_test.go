package kernel

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// ended waits for ctx to end, failing the test if it does not in time.
func ended(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the context did not end")
	}
}

func TestEndableEndsAsTheStandardLibrarysContexts(t *testing.T) {
	t.Run("cancel", func(t *testing.T) {
		var e budgetContext
		e.start(context.Background(), 0)
		done := e.Done()
		if e.Err() != nil {
			t.Fatalf("Err before the end: %v", e.Err())
		}
		e.cancel()
		ended(t, &e)
		if e.Done() != done || !errors.Is(e.Err(), context.Canceled) {
			t.Errorf("Err %v", e.Err())
		}
		e.end(context.DeadlineExceeded) // the first end stays
		if !errors.Is(e.Err(), context.Canceled) {
			t.Errorf("a second end changed Err to %v", e.Err())
		}
	})
	t.Run("timeout", func(t *testing.T) {
		var e budgetContext
		e.start(context.Background(), time.Millisecond)
		if d, ok := e.Deadline(); !ok || d.IsZero() {
			t.Errorf("Deadline %v %v", d, ok)
		}
		ended(t, &e)
		if !errors.Is(e.Err(), context.DeadlineExceeded) {
			t.Errorf("Err %v", e.Err())
		}
	})
	t.Run("parent", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		var e budgetContext
		e.start(parent, 0)
		cancel()
		ended(t, &e)
		if !errors.Is(e.Err(), context.Canceled) {
			t.Errorf("Err %v", e.Err())
		}
	})
	t.Run("parent ended before", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		cancel()
		var e budgetContext
		e.start(parent, time.Hour)
		if !errors.Is(e.Err(), context.Canceled) {
			t.Errorf("Err %v", e.Err())
		}
	})
	t.Run("children and AfterFunc", func(t *testing.T) {
		var e budgetContext
		e.start(context.Background(), 0)
		child, cancelChild := context.WithCancel(&e)
		defer cancelChild()
		ran := make(chan struct{})
		context.AfterFunc(&e, func() { close(ran) })
		stopped := context.AfterFunc(&e, func() { t.Error("a stopped func ran") })
		if !stopped() {
			t.Error("stop did not stop the func")
		}
		e.cancel()
		ended(t, child)
		select {
		case <-ran:
		case <-time.After(10 * time.Second):
			t.Fatal("AfterFunc's func did not run")
		}
		late := make(chan struct{})
		context.AfterFunc(&e, func() { close(late) })
		<-late
	})
}

// TestEndableRaces ends an endable from its timer, its parent and cancel
// at once while others register funcs and read it; run it with -race.
func TestEndableRaces(t *testing.T) {
	for range 100 {
		parent, cancel := context.WithCancel(context.Background())
		var e budgetContext
		e.start(parent, time.Microsecond)
		var wg sync.WaitGroup
		var ran sync.WaitGroup
		for range 4 {
			ran.Add(1)
			wg.Go(func() {
				context.AfterFunc(&e, ran.Done)
				_ = e.Err()
				<-e.Done()
			})
		}
		wg.Go(cancel)
		wg.Go(e.cancel)
		wg.Wait()
		ran.Wait()
	}
}
