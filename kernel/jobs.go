package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/spawn"
)

// job is a top-level `cmd &` of a call: a subshell that outlives the call
// and belongs to the session. Everything it prints goes to its log; while
// the call that started it runs, also to that call's result.
type job struct {
	id      int
	command string
	logPath string
	cancel  context.CancelFunc
	done    chan struct{}
	running chan struct{} // closed when the job's first process started
	// launch is the job's first start of a process: begun when it is
	// about to fork, ended once it started or failed to (startJob).
	launch launchNote

	// guarded by jobTable.mu
	status   int
	finished bool
	signal   syscall.Signal // the signal `kill` ended it with
	pids     []int          // live processes, each the leader of its group
	firstPID int
}

type jobKey struct{}

// jobOf is the job a handler runs for, nil in the foreground.
func jobOf(ctx context.Context) *job {
	j, _ := ctx.Value(jobKey{}).(*job)
	return j
}

// jobTable is a session's jobs and the processes it runs, which are the
// only ones `kill PID` may signal.
type jobTable struct {
	mu    sync.Mutex
	jobs  []*job       // running, or finished and not yet reported by jobs/wait
	procs map[int]*job // live processes of the session; nil job: foreground
	nohup map[int]bool // live processes started under nohup
	gone  *sync.Cond   // signalled as processes exit; on mu
}

func (t *jobTable) started(j *job, pid int, nohup bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.procs == nil {
		t.procs = make(map[int]*job)
		t.nohup = make(map[int]bool)
	}
	t.procs[pid] = j
	if nohup {
		t.nohup[pid] = true
	}
	if j != nil {
		j.pids = append(j.pids, pid)
		if j.firstPID == 0 {
			j.firstPID = pid
			close(j.running)
		}
	}
}

func (t *jobTable) exited(j *job, pid int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone != nil {
		t.gone.Broadcast()
	}
	delete(t.procs, pid)
	delete(t.nohup, pid)
	if j != nil {
		j.pids = slices.DeleteFunc(j.pids, func(p int) bool { return p == pid })
	}
}

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
// known by a pid ($!): when its first process started, when it ended
// without one, when its first command is a tool that runs in process (a
// builtin: no process of its own), or after jobPIDWait, whichever comes
// first. It returns nil
// when the job could not start.
func (s *Session) startJob(from *interp.Runner, st *syntax.Stmt, command string, stdout, stderr io.Writer) *job {
	t := &s.jobs
	t.mu.Lock()
	// As in bash: one more than the highest job still known.
	id := 1
	for _, j := range t.jobs {
		id = max(id, j.id+1)
	}
	t.mu.Unlock()

	st2 := *st
	st2.Background = false
	j := &job{id: id, command: command, done: make(chan struct{}), running: make(chan struct{}), launch: newLaunchNote()}
	j.logPath = filepath.Join(s.spills.Path(), fmt.Sprintf("job-%d.log", id))
	log, err := s.newJobLog(j.logPath)
	if err != nil && !fsroot.NoRoom(err) {
		fmt.Fprintf(stderr, "shelter: job log: %v\n", err)
		return nil
	}
	if err != nil {
		// No log can be written (a read-only /tmp): the job runs all the
		// same, and what it prints after its call is dropped.
		devnull, derr := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if derr != nil {
			fmt.Fprintf(stderr, "shelter: job log: %v\n", err)
			return nil
		}
		s.noteNoDirs(stderr, err)
		j.logPath = ""
		log = spawn.NewLogFile(devnull, s.k.cfg.SpillCap)
	}
	ctx := new(budgetContext)
	s.startBudget(ctx, context.WithValue(s.life, jobKey{}, j), time.Now(), 0)
	cancel := ctx.cancel
	j.cancel = cancel

	sub := from.Subshell()
	interp.StdIO(s.devnull, &jobWriter{log: log, call: stdout}, &jobWriter{log: log, call: stderr})(sub)

	t.mu.Lock()
	t.jobs = append(t.jobs, j)
	t.mu.Unlock()
	window := s.window()
	go func() {
		crash, err := runGuarded(ctx, sub, &st2)
		status := exitCode(err)
		var over *memoryError
		switch {
		case crash != nil:
			status = 2
			fmt.Fprintf(log, "shelter: the interpreter failed on this job: %v\n", crash)
		case errors.As(ctx.b.endedBy(), &over) && s.life.Err() == nil:
			status = 1
			fmt.Fprintln(log, over.Error())
		}
		t.mu.Lock()
		switch {
		case j.signal != 0:
			status = 128 + int(j.signal)
		case ctx.Err() != nil && status < 128 && over == nil:
			status = 128 + int(syscall.SIGTERM)
		}
		j.status, j.finished = status, true
		t.mu.Unlock()
		cancel()
		// What escaped the job ends before the job counts as done: Close
		// waits for done, and the host may exit right after.
		window.Close()
		log.Close()
		close(j.done)
	}()
	timer := time.NewTimer(jobPIDWait)
	defer timer.Stop()
	select {
	case <-j.running:
	case <-j.done:
	case <-j.launch.begun:
	case <-j.launch.inProcess:
	case <-timer.C:
	}
	select {
	case <-j.launch.begun:
		// Its first process is being started: its pid comes once fork
		// returns, however loaded the machine.
		select {
		case <-j.running:
		case <-j.done:
		case <-j.launch.ended:
		}
	default:
	}
	t.mu.Lock()
	if j.firstPID == 0 {
		// A job that runs no program (yet) is known by an id no process
		// can have: above the kernel's largest pid.
		j.firstPID = maxPID + j.id
	}
	s.lastJob.Store(int64(j.firstPID))
	t.mu.Unlock()
	return j
}

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

// jobPIDWait bounds how long `cmd &` waits for the job's first process,
// whose pid becomes $!, to begin to start: one that has begun is waited
// for until it started or failed to.
var jobPIDWait = 200 * time.Millisecond // a var for a test

// launchNote is the first start of a process of a job: begun and ended
// are closed once each, by the first start only, and inProcess once a
// command of the job ran in process before any start; a zero launchNote
// (a yielded call's job) notes nothing.
type launchNote struct {
	begun, ended, inProcess           chan struct{}
	markBegun, markEnd, markInProcess func() // close them, the first time only
}

func newLaunchNote() launchNote {
	begun, ended, inProcess := make(chan struct{}), make(chan struct{}), make(chan struct{})
	return launchNote{
		begun, ended, inProcess,
		sync.OnceFunc(func() { close(begun) }),
		sync.OnceFunc(func() { close(ended) }),
		sync.OnceFunc(func() { close(inProcess) }),
	}
}

// ranInProcess notes a command of the job that runs in shelter's process:
// until a process starts, the job has no pid to wait for.
func (l launchNote) ranInProcess() {
	if l.inProcess != nil {
		l.markInProcess()
	}
}

// begin notes a process about to start; the end it returns notes that it
// started or failed to.
func (l launchNote) begin() (end func()) {
	if l.begun == nil {
		return func() {}
	}
	l.markBegun()
	return l.markEnd
}

// maxPID is Linux's largest pid_max (2^22).
const maxPID = 1 << 22

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

// pid is the process a job is known by: its $!, the first process it
// ran (or the id it has while it ran none), which kill, wait and disown
// take for the whole job, as bash's jobs -p prints the process that runs
// the whole job. t.mu must be held.
func (j *job) pid() int { return j.firstPID }

// running lists the jobs still running, for Result.Jobs.
func (t *jobTable) running() []Job {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Job
	for _, j := range t.jobs {
		if !j.finished {
			out = append(out, Job{ID: j.id, PID: j.pid(), Command: j.command, Log: j.logPath})
		}
	}
	return out
}

func (t *jobTable) all() []*job {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.jobs)
}

// forget drops finished jobs that have been reported.
func (t *jobTable) forget(done []*job) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.jobs = slices.DeleteFunc(t.jobs, func(j *job) bool { return j.finished && slices.Contains(done, j) })
}

func (t *jobTable) killAll() {
	for _, j := range t.all() {
		j.cancel()
	}
}

// waitGone waits until no process of the session is alive, at most for d:
// those that the end of their call or job signalled are reaped first.
func (t *jobTable) waitGone(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.procs) == 0 {
		return
	}
	if t.gone == nil {
		t.gone = sync.NewCond(&t.mu)
	}
	expired := false
	timer := time.AfterFunc(d, func() {
		t.mu.Lock()
		expired = true
		t.gone.Broadcast()
		t.mu.Unlock()
	})
	defer timer.Stop()
	for len(t.procs) > 0 && !expired {
		t.gone.Wait()
	}
}

func (t *jobTable) waitAll() {
	for _, j := range t.all() {
		<-j.done
	}
}

// owns reports whether pid is a live process of the session.
func (t *jobTable) owns(pid int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.procs[pid]
	return ok
}

func (t *jobTable) ownedPIDs() []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	pids := make([]int, 0, len(t.procs))
	for p := range t.procs {
		pids = append(pids, p)
	}
	slices.Sort(pids)
	return pids
}
