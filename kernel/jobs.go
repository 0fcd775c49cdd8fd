package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/budget"
	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/kernel/internal/jobtable"
	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/spawn"
)

// Jobs is a session's background jobs (`cmd &`) and the processes it
// runs, as the jobs, wait and kill builtins see them ([Call.Jobs]): List,
// Find (%N, %%, %+ or a pid) and ByBang ($!) name them, Wait and WaitAny
// wait for them, Report drops those finished from the list, Signal sends
// a job a signal, Processes and SignalProcess reach one process of the
// session and no other. A job is named by its id, the N of %N.
type Jobs = jobtable.Jobs

// JobState is a job as [Jobs.List] found it: the [Job], Finished once it
// ended and Status then its exit status, 128+N when signal N ended it.
type JobState = jobtable.JobState

// Job is a background job still running after its call returned: its
// ID (the N of %N), its PID ($!), the Command it runs and the path of
// its Log.
type Job = jobtable.Job

// Jobs returns the jobs of the call's session.
func (c *Call) Jobs() *Jobs {
	return c.session.jobs.Jobs(c.session.grace(), c.self)
}

// job is a top-level `cmd &` of a call, or a call that yielded: a
// subshell that outlives the call and belongs to the session, an entry
// of its job table. Everything it prints goes to its log; while the call
// that started it runs, also to that call's result.
type job = jobtable.Entry

type jobKey struct{}

// jobOf is the job a handler runs for, nil in the foreground.
func jobOf(ctx context.Context) *job {
	j, _ := ctx.Value(jobKey{}).(*job)
	return j
}

// errJobKilled ends the script of a job that kill ended.
var errJobKilled = errors.New("job killed")

// newJobLog creates a job's log afresh, and the spill directory it lives
// in when this is the session's first, following no symbolic link.
func (s *Session) newJobLog(path string) (*spawn.Log, error) {
	f, err := s.spills.Create(filepath.Base(path))
	if err != nil {
		return nil, err
	}
	return spawn.NewLogFile(f, s.k.cfg.SpillCap), nil
}

// startJob runs st, which jobs lists as command, in a subshell of the
// state of from, the call's interpreter, and returns once the job is
// known by a pid ($!, jobtable.Table.AwaitPID waiting at most
// jobPIDWait). It returns nil when the job could not start.
func (s *Session) startJob(from *interp.Runner, st *syntax.Stmt, command string, stdout, stderr io.Writer) *job {
	t := &s.jobs
	id := t.Reserve()
	st2 := *st
	st2.Background = false
	logPath := filepath.Join(s.spills.Path(), fmt.Sprintf("job-%d.log", id))
	log, err := s.newJobLog(logPath)
	if err != nil && !fsroot.NoRoom(err) {
		t.Release(id)
		fmt.Fprintf(stderr, "shelter: job log: %v\n", err)
		return nil
	}
	if err != nil {
		// No log can be written (a read-only /tmp): the job runs all the
		// same, and what it prints after its call is dropped.
		devnull, derr := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if derr != nil {
			t.Release(id)
			fmt.Fprintf(stderr, "shelter: job log: %v\n", err)
			return nil
		}
		s.noteNoDirs(stderr, err)
		logPath = ""
		log = spawn.NewLogFile(devnull, s.k.cfg.SpillCap)
	}
	ctx := new(budgetContext)
	j := jobtable.NewEntry(id, command, logPath, ctx.Cancel)
	s.startBudget(ctx, context.WithValue(s.life, jobKey{}, j), time.Now(), 0)

	sub := from.Subshell()
	interp.StdIO(s.devnull, &jobWriter{log: log, call: stdout}, &jobWriter{log: log, call: stderr})(sub)

	t.Add(j)
	window := s.window()
	go func() {
		crash, err := runGuarded(ctx, sub, &st2)
		status := exitCode(err)
		var over *budget.MemoryError
		switch {
		case crash != nil:
			status = 2
			fmt.Fprintf(log, "shelter: the interpreter failed on this job: %v\n", crash)
		case errors.As(ctx.b.EndedBy(), &over) && s.life.Err() == nil:
			status = 1
			fmt.Fprintln(log, over.Error())
		}
		if ctx.Err() != nil && status < 128 && over == nil {
			status = 128 + int(syscall.SIGTERM)
		}
		t.Finish(j, status)
		ctx.Cancel()
		// What escaped the job ends before the job counts as done: Close
		// waits for done, and the host may exit right after.
		window.Close()
		log.Close()
		j.Close()
	}()
	s.lastJob.Store(int64(t.AwaitPID(j, jobPIDWait)))
	return j
}

// jobPIDWait bounds how long `cmd &` waits for the job's first process,
// whose pid becomes $!, to begin to start: one that has begun is waited
// for until it started or failed to.
var jobPIDWait = 200 * time.Millisecond // a var for a test

// window opens the subreaper's window of a call or job; nil (which Close
// accepts) when the kernel has no subreaper.
func (s *Session) window() *orphanWindow {
	if !s.k.cfg.Subreaper {
		return nil
	}
	w := spawn.OpenWindow()
	w.Grace = s.grace()
	return &orphanWindow{w}
}

type orphanWindow struct{ w *spawn.Window }

func (o *orphanWindow) Close() {
	if o != nil {
		o.w.Close()
	}
}

func commandText(st *syntax.Stmt) string {
	var b strings.Builder
	syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, st)
	return b.String()
}

// jobWriter sends a job's output to its log and to the stream of the call
// that started it; that stream discards everything once its call returned.
type jobWriter struct {
	log  io.Writer
	call io.Writer
}

func (w *jobWriter) Write(p []byte) (int, error) {
	if internalTrace(p) {
		return len(p), nil
	}
	w.call.Write(p)
	return w.log.Write(p)
}

// waitsForJobs decides who answers `wait`: shelter when the session has
// jobs, a job is named or a flag given; otherwise mvdan's own wait, which knows the
// background work of functions and subshells (and a job's own `wait`).
func (s *Session) waitsForJobs(ctx context.Context, args []string) bool {
	if jobOf(ctx) != nil {
		return false
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "%") || isFlag(a) {
			return true
		}
		if _, err := strconv.Atoi(a); err == nil {
			// A pid: a job's, or none this shell knows (mvdan's own
			// background work is named g1, g2…).
			return true
		}
	}
	return s.jobs.Len() > 0
}

// procSubstWait turns the $! of each process substitution that wait
// names (rewrite.ProcSubstBase plus N) into gN, the name mvdan's own wait
// knows it by in the shell that made it, and hands wait to mvdan; ok is
// false when wait names none.
func procSubstWait(args []string) ([]string, bool) {
	var out []string
	for i, a := range args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil || n <= rewrite.ProcSubstBase {
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[1+i] = "g" + strconv.Itoa(n-rewrite.ProcSubstBase)
	}
	return out, out != nil
}

// grace is the session's time between SIGTERM and SIGKILL.
func (s *Session) grace() time.Duration {
	if g := s.k.cfg.KillGrace; g != 0 {
		return max(g, 0)
	}
	return spawn.DefaultGrace
}
