// Package budget bounds what one call (or one job) of a session holds in
// shelter's own memory, and how deep its calls nest. A [Budget] counts
// each command substitution's capture ([Bound], [Cat]) and the
// variables ([Budget.CheckHeld]); outgrown, it ends the call through its
// [Canceler] and remembers why: a [*MemoryError], or [ErrTooDeep] when
// calls nest past [MaxCallDepth]. The kernel makes one for each call and
// job, in the context they run in.
package budget

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/expand"
)

// A Canceler is what a Budget ends when it is outgrown: the context of
// the call or job it bounds.
type Canceler interface{ Cancel() }

// Budget bounds a call or job. Captures are checked as they are written;
// the variables at most once a millisecond, from the call handler, so
// that the hot path pays one clock read. Its zero value is not ready:
// [Budget.Init] readies it.
type Budget struct {
	limit int64
	owner Canceler
	cause atomic.Pointer[error] // why End ended it: ErrTooDeep or a *MemoryError
	next  atomic.Int64          // the clock (clockNow) at the next variable check
	calls atomic.Int64          // commands so far, for DeepStack
	count atomic.Int64          // the command at which DeepStack next counts frames
}

// Init readies b to bound the call or job that owner ends, which started
// at start, to limit bytes; a negative limit bounds only how deep its
// calls nest.
func (b *Budget) Init(limit int64, owner Canceler, start time.Time) {
	b.limit, b.owner = limit, owner
	b.next.Store(int64(start.Sub(clockBase) + time.Millisecond))
	// No command opens more than one level: the first deepInterval
	// cannot reach the bound.
	b.count.Store(deepInterval)
}

// Limit is the bound of memory b was given; negative for none.
func (b *Budget) Limit() int64 { return b.limit }

// End ends the call or job the budget bounds, for err.
func (b *Budget) End(err error) {
	b.cause.CompareAndSwap(nil, &err)
	b.owner.Cancel()
}

// EndedBy is the error End was given first; nil if it was not called.
func (b *Budget) EndedBy() error {
	if p := b.cause.Load(); p != nil {
		return *p
	}
	return nil
}

// MemoryError ends a call that outgrew its budget.
type MemoryError struct {
	Limit int64
	By    string // what outgrew it: "a command substitution's output", …
	Size  int64
	Unset []string // the variables the kernel unset after the call
}

func (e *MemoryError) Error() string {
	line := fmt.Sprintf("shelter: memory limit of %s exceeded by %s (%s); write large data to a file instead", ByteSize(e.Limit), e.By, ByteSize(e.Size))
	if len(e.Unset) > 0 {
		line += "; shelter unset " + strings.Join(e.Unset, " ")
	}
	return line
}

// IsMemoryError reports whether err is, or wraps, a [*MemoryError].
func IsMemoryError(err error) bool {
	var m *MemoryError
	return errors.As(err, &m)
}

// VarsCause is what a MemoryError names as By when the variables outgrew
// the budget.
const VarsCause = "the shell's variables"

// Exceed ends the call for size bytes of what by names: its status is 1
// and its stderr names the cause.
func (b *Budget) Exceed(by string, size int64) error {
	err := &MemoryError{Limit: b.limit, By: by, Size: size}
	b.End(err)
	return err
}

// Allows reports whether size bytes fit in the budget; b may be nil.
func (b *Budget) Allows(size int64) bool {
	return b == nil || size <= b.limit
}

// CheckHeld measures the variables of env and stdout, when it is the
// capture being written, at most once a millisecond.
func (b *Budget) CheckHeld(stdout io.Writer, env expand.Environ) error {
	now := clockNow()
	if now < b.next.Load() {
		return nil
	}
	b.next.Store(now + int64(time.Millisecond))
	if sb, ok := stdout.(*strings.Builder); ok && int64(sb.Len()) > b.limit {
		n := int64(sb.Len())
		sb.Reset()
		return b.Exceed("a command substitution's output", n)
	}
	if n := varBytes(env); n > b.limit {
		return b.Exceed(VarsCause, n)
	}
	return nil
}

// clockBase is where the budget's clock starts. Every command reads the
// clock: time.Since of a time with a monotonic reading reads it once,
// time.Now twice (the wall clock as well).
var clockBase = time.Now()

// clockNow is the budget's clock, in nanoseconds since clockBase.
func clockNow() int64 { return int64(time.Since(clockBase)) }

// varBytes is what the variables of env hold.
func varBytes(env expand.Environ) int64 {
	var n int64
	env.Each(func(name string, v expand.Variable) bool {
		n += VarSize(name, v)
		return true
	})
	return n
}

// VarSize is what one variable holds, its name included.
func VarSize(name string, v expand.Variable) int64 {
	n := int64(len(name) + len(v.Str))
	for _, e := range v.List {
		n += int64(len(e))
	}
	for k, e := range v.Map {
		n += int64(len(k) + len(e))
	}
	return n
}

// ByteSize writes n bytes for people: "256 MiB", "1.5 MiB", "12 bytes".
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
