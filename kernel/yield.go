package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/jobtable"
)

// A call run with RunOptions.Yield runs on the session's interpreter as
// any other, with a copy of the session's state taken before it starts
// (mvdanpriv.Snapshot: the session's own variables, not the environment
// it started with, which nothing writes to).
// Past the yield point the call is handed to the job table as it runs:
// its streams go on into a job log, and the copy becomes the session's
// interpreter, so the session goes on from the state it had before the
// call. Handlers find the call's own state through its context (callOf),
// since the session's current call is then another one.

type callKey struct{}

// callOf is the foreground call a handler runs for: the one its context
// names (a yielded call), else the session's running one.
func (s *Session) callOf(ctx context.Context) *callState {
	if st, ok := ctx.Value(callKey{}).(*callState); ok {
		return st
	}
	return s.call.Load()
}

// yieldable reports whether a call with opts may yield: not on a
// terminal, whose foreground it holds.
func yieldable(opts RunOptions) bool {
	return opts.Yield > 0 && opts.TTY == nil && opts.Terminal == nil && !opts.Interactive
}

type outcome struct {
	crash any
	err   error
}

// runYielding runs file, waiting at most d for it; a nil channel means
// it finished (crash, err), else it goes on and sends its outcome there.
func runYielding(ctx context.Context, r *interp.Runner, file *syntax.File, d time.Duration) (chan outcome, any, error) {
	ch := make(chan outcome, 1)
	go func() {
		growStack(0)
		crash, err := runGuarded(ctx, r, file)
		ch <- outcome{crash, err}
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case o := <-ch:
		return nil, o.crash, o.err
	case <-timer.C:
		return ch, nil, nil
	}
}

// growStack grows a new goroutine's stack at once to what a short
// interpreter run needs (16 KB), while there is nothing on it to copy:
// the run would otherwise grow it step by step, copying its frames at
// each step, which was a third of the cost of a short yielding call. A
// larger pad costs more to clear than it saves.
//
//go:noinline
func growStack(i int) byte {
	var pad [8 << 10]byte
	pad[i] = 1
	return pad[len(pad)-1-i]
}

// yielded is what a call hands over at its yield point.
type yielded struct {
	snap    *interp.Runner // the session's state before the call
	command string
	ctx     context.Context // the call's
	end     context.CancelFunc
	timeout time.Duration
	f       *callFrame
	running chan outcome
	hold    *callHold // what the call would release when it returned
}

// yield turns the running call into a job of the session and answers
// with what it has printed so far; s.mu is held.
func (s *Session) yield(y *yielded, start time.Time) Result {
	t := &s.jobs
	id := t.Reserve()
	logPath := filepath.Join(s.spills.Path(), fmt.Sprintf("job-%d.log", id))
	var logW io.Writer = io.Discard
	log, err := s.newJobLog(logPath)
	if err == nil {
		logW = log
	}
	y.f.out.divert(logW)
	y.f.errOut.divert(logW)
	// The job ends with the session, not with the caller's context.
	stop := context.AfterFunc(s.life, y.end)
	y.hold.after = append(y.hold.after, func() { stop() })
	j := jobtable.NewInProcess(id, y.command, logPath, y.end)
	t.Add(j)
	y.f.state.yielded.Store(j)

	// The session goes on from its state before the call.
	r := y.snap
	interp.StdIO(s.devnull, io.Discard, io.Discard)(r)
	r.Run(context.Background(), noop().Stmts[0])
	// The yielded call's runner runs on with the table it was lent.
	s.vars = nil
	s.runner = r
	s.call.Store(nil)

	stdout, stderr := &y.f.stdout, &y.f.stderr
	stdout.Close()
	stderr.Close()
	res := Result{
		ExitCode:   -1, // no status yet: the call runs on
		Cwd:        r.Dir,
		DurationMS: time.Since(start).Milliseconds(),
		Yielded:    true,
		Jobs:       t.Running(),
	}
	s.captured(&res, stdout, stderr)

	go func() {
		o := <-y.running
		status := exitCode(o.err)
		switch {
		case o.crash != nil:
			status = 2
			fmt.Fprintf(logW, "shelter: the interpreter failed on this job: %v\n", o.crash)
		case errors.Is(y.ctx.Err(), context.DeadlineExceeded):
			status = 124
			fmt.Fprintf(logW, "shelter: timed out after %s\n", y.timeout)
		}
		if y.ctx.Err() != nil && status < 124 {
			status = 128 + int(syscall.SIGTERM)
		}
		y.hold.release()
		if log != nil {
			log.Close()
		}
		t.Finish(j, status)
		j.Close()
	}()
	return res
}

var noop = lazyParse(":")

// divert sends what the stream receives from now on to w alone: the
// call it belonged to has returned.
func (s *stream) divert(w io.Writer) {
	s.mu.Lock()
	s.diverted, s.live = w, nil
	s.mu.Unlock()
}

// yieldedJob is the job the call became at its yield point; nil before
// and for a call that did not yield.
func (st *callState) yieldedJob() *job {
	if st == nil {
		return nil
	}
	return st.yielded.Load()
}
