package kernel

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// endable is the cancellation of a budgetContext: it ends when its cancel
// is called, when its timeout passes or when its parent ends, as the
// context of context.WithCancel or WithTimeout would, but in the value
// that holds it, where the standard library's would be another
// allocation, and an entry in its parent's list to take out at the end.
// It serves context.AfterFunc (AfterFunc) as a context of the standard
// library's does, with no goroutine waiting.
type endable struct {
	parent   context.Context
	deadline time.Time // zero for none of its own
	ended    atomic.Bool

	mu     sync.Mutex
	err    error
	done   chan struct{} // made by the first Done
	afters []*afterFunc  // what AfterFunc registered and has not stopped
	ends   []func()      // what onEnd registered
	timer  *time.Timer
	detach func() bool // stops the parent's AfterFunc
}

type afterFunc struct{ f func() }

// start makes e the child of parent that ends after timeout (none when it
// is not positive).
func (e *endable) start(parent context.Context, timeout time.Duration) {
	e.parent = parent
	if err := parent.Err(); err != nil {
		e.end(err)
		return
	}
	var detach func() bool
	var timer *time.Timer
	if parent.Done() != nil {
		detach = context.AfterFunc(parent, func() { e.end(parent.Err()) })
	}
	if timeout > 0 {
		e.deadline = time.Now().Add(timeout)
		timer = time.AfterFunc(timeout, func() { e.end(context.DeadlineExceeded) })
	}
	// Either may have ended e already, from its own goroutine.
	e.mu.Lock()
	ended := e.err != nil
	if !ended {
		e.detach, e.timer = detach, timer
	}
	e.mu.Unlock()
	if ended {
		if detach != nil {
			detach()
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// Cancel ends e, as a context.CancelFunc does; it makes e the
// budget.Canceler of its call or job.
func (e *endable) Cancel() { e.end(context.Canceled) }

// end ends e for err, once; the funcs AfterFunc registered run each in a
// goroutine of its own.
func (e *endable) end(err error) {
	e.mu.Lock()
	if e.err != nil {
		e.mu.Unlock()
		return
	}
	e.err = err
	e.ended.Store(true)
	if e.done != nil {
		close(e.done)
	}
	afters, ends := e.afters, e.ends
	e.afters, e.ends = nil, nil
	timer, detach := e.timer, e.detach
	e.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	if detach != nil {
		detach()
	}
	for _, f := range ends {
		f()
	}
	for _, a := range afters {
		go a.f()
	}
}

// onEnd arranges for f to run once e ends, at once if it has, on the
// goroutine that ends e: f must return at once. It costs neither the
// goroutine AfterFunc starts nor the contexts context.AfterFunc makes.
func (e *endable) onEnd(f func()) {
	e.mu.Lock()
	if e.err != nil {
		e.mu.Unlock()
		f()
		return
	}
	e.ends = append(e.ends, f)
	e.mu.Unlock()
}

func (e *endable) Deadline() (time.Time, bool) {
	d, ok := e.parent.Deadline()
	if !e.deadline.IsZero() && (!ok || e.deadline.Before(d)) {
		return e.deadline, true
	}
	return d, ok
}

func (e *endable) Done() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done == nil {
		e.done = make(chan struct{})
		if e.err != nil {
			close(e.done)
		}
	}
	return e.done
}

// Err is read at every statement: one atomic load until e ends.
func (e *endable) Err() error {
	if !e.ended.Load() {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// AfterFunc arranges for f to run in its own goroutine once e ends, at
// once if it has; stop keeps it from running and reports whether it did.
// context.AfterFunc and the contexts made from e find it, as they find a
// standard library context's.
func (e *endable) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	e.mu.Lock()
	if e.err != nil {
		e.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	e.afters = append(e.afters, a)
	e.mu.Unlock()
	return func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		for i, b := range e.afters {
			if b == a {
				e.afters = slices.Delete(e.afters, i, i+1)
				return true
			}
		}
		return false
	}
}

// afterFuncs is ctx for context.AfterFunc and the contexts made from it.
// mvdan/sh hands each command a value context over the call's or job's
// budget context, and the standard library, which finds neither a
// context of its own nor an AfterFunc method there, would start a
// goroutine to watch it for each registration (a process's kill, each
// read from a pipe). When ctx ends exactly when the budget context does,
// with nothing between them that ends it sooner, afterFuncs gives ctx
// that context's AfterFunc, and the registration is a list entry.
func afterFuncs(ctx context.Context) context.Context {
	bc, ok := ctx.Value(budgetContextKey{}).(*budgetContext)
	if !ok || ctx == context.Context(bc) || ctx.Done() != bc.Done() {
		return ctx
	}
	return endsWith{ctx, &bc.endable}
}

// endsWith is a context whose ending is e's.
type endsWith struct {
	context.Context
	e *endable
}

func (c endsWith) AfterFunc(f func()) (stop func() bool) { return c.e.AfterFunc(f) }
