package kernel

import (
	"context"
	"errors"
	"runtime"
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
		e.Cancel()
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
		e.Cancel()
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
		wg.Go(e.Cancel)
		wg.Wait()
		ran.Wait()
	}
}

// TestAfterFuncsRegisterWithTheBudgetContext: through a value context
// over a budget context (mvdan/sh's handler context), context.AfterFunc
// and the contexts made from afterFuncs' answer register with the
// budget context; the standard library would start a goroutine for each.
func TestAfterFuncsRegisterWithTheBudgetContext(t *testing.T) {
	type key struct{}
	var c budgetContext
	c.start(context.Background(), 0)
	ctx := afterFuncs(context.WithValue(&c, key{}, "v"))
	if ctx.Value(key{}) != "v" {
		t.Fatal("afterFuncs lost a value of the context")
	}
	const n = 100
	before := runtime.NumGoroutine()
	var ran sync.WaitGroup
	var children []context.Context
	for range n {
		ran.Add(1)
		context.AfterFunc(ctx, ran.Done)
		child, cancel := context.WithCancel(ctx)
		defer cancel()
		children = append(children, child)
	}
	if grew := runtime.NumGoroutine() - before; grew >= n {
		t.Errorf("%d registrations started %d goroutines", 2*n, grew)
	}
	c.Cancel()
	ran.Wait()
	for _, child := range children {
		ended(t, child)
	}

	// A context between them that can end sooner is left as it is.
	var d budgetContext
	d.start(context.Background(), 0)
	inner, cancel := context.WithCancel(context.WithValue(&d, key{}, "v"))
	defer cancel()
	if got := afterFuncs(inner); got != inner {
		t.Errorf("afterFuncs replaced a context that ends before the budget context")
	}
}

// onEnd runs its func on the goroutine that ends the endable, before
// end returns, and at once once it has ended.
func TestEndableOnEnd(t *testing.T) {
	var e endable
	e.start(context.Background(), 0)
	ran := 0
	e.onEnd(func() { ran++ })
	if ran != 0 {
		t.Fatal("onEnd ran before the end")
	}
	e.Cancel()
	if ran != 1 {
		t.Fatalf("after Cancel: ran %d times, want 1", ran)
	}
	e.onEnd(func() { ran++ })
	e.Cancel()
	if ran != 2 {
		t.Fatalf("registered after the end: ran %d times in all, want 2", ran)
	}
}
