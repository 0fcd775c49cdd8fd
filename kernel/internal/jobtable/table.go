// Package jobtable keeps a session's books of its background jobs and
// processes: the [Table] of its jobs (`cmd &` and the calls that
// yielded), numbered as bash numbers them, and of the processes the
// session runs, which are the only ones kill may signal; and [Jobs], the
// view of the table the jobs, wait and kill builtins use. Starting a job
// (running a statement in a subshell, its budget, its log) is the
// kernel's: it hands the table each job as an [Entry] and reports the
// processes it starts and reaps.
package jobtable

import (
	"slices"
	"sync"
	"syscall"
	"time"
)

// MaxPID is Linux's largest pid_max (2^22). A job that runs no program
// is known by an id no process can have: MaxPID plus its job id.
const MaxPID = 1 << 22

// Entry is one job of a [Table]: a subshell that outlives the call that
// started it and belongs to the session.
type Entry struct {
	id      int
	command string
	log     string
	cancel  func()
	done    chan struct{} // closed by Close
	running chan struct{} // closed when the job's first process started
	// launch is the job's first start of a process: begun when it is
	// about to fork, ended once it started or failed to.
	launch launchNote

	// guarded by Table.mu
	status   int
	finished bool
	signal   syscall.Signal // the signal kill ended it with
	pids     []int          // live processes, each the leader of its group
	firstPID int
	disowned bool // disown dropped it from the jobs the script sees
}

// NewEntry returns a job of that id, not yet in a table, which jobs
// lists as command and whose output goes to the log at that path ("" for
// none). cancel ends it: what it runs is signalled and it starts nothing
// more. Its pid comes from its first process ([Table.Started]) or
// [Table.AwaitPID].
func NewEntry(id int, command, log string, cancel func()) *Entry {
	return &Entry{id: id, command: command, log: log, cancel: cancel,
		done: make(chan struct{}), running: make(chan struct{}), launch: newLaunchNote()}
}

// NewInProcess returns a job that runs in shelter's process from its
// start, as NewEntry does: a call that yielded. It is known at once by
// its stand-in pid and notes no start of a process.
func NewInProcess(id int, command, log string, cancel func()) *Entry {
	e := &Entry{id: id, command: command, log: log, cancel: cancel,
		done: make(chan struct{}), running: make(chan struct{}), firstPID: MaxPID + id}
	close(e.running)
	return e
}

// Close marks the job done, once what it held is released: the waits
// for it return. It follows [Table.Finish], once.
func (e *Entry) Close() { close(e.done) }

// Done is closed once the job is done ([Entry.Close]).
func (e *Entry) Done() <-chan struct{} { return e.done }

// pid is the process a job is known by: its $!, the first process it
// ran (or the id it has while it ran none), which kill, wait and disown
// take for the whole job, as bash's jobs -p prints the process that runs
// the whole job. Table.mu must be held.
func (e *Entry) pid() int { return e.firstPID }

// Table is a session's jobs and the processes it runs. Its zero value is
// an empty table, ready to use; it is safe for concurrent use.
type Table struct {
	mu    sync.Mutex
	jobs  []*Entry       // running, or finished and not yet reported by jobs/wait
	procs map[int]*Entry // live processes of the session; nil entry: foreground
	nohup map[int]bool   // live processes started under nohup
	gone  *sync.Cond     // signalled as processes exit; on mu
	// reserved are the ids Reserve handed out whose jobs are not yet
	// added: a yielded call and the next call may start jobs at once.
	reserved map[int]bool
	// reaped are the statuses of the jobs reported and forgotten, by
	// pid, as bash remembers them: `wait PID` of such a job again
	// returns its status. The oldest go past maxReaped.
	reaped      map[int]int
	reapedOrder []int
}

// maxReaped bounds the statuses of forgotten jobs a table remembers.
const maxReaped = 256

// NextID is the id the next job would get, as bash numbers them: one
// more than the highest job still known (or reserved).
func (t *Table) NextID() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nextID()
}

func (t *Table) nextID() int {
	id := 1
	for _, j := range t.jobs {
		if !j.disowned {
			id = max(id, j.id+1)
		}
	}
	for r := range t.reserved {
		id = max(id, r+1)
	}
	return id
}

// Reserve is [Table.NextID], held for the caller until it adds the job
// of that id ([Table.Add]) or gives the id back ([Table.Release]): two
// jobs started at once get two ids.
func (t *Table) Reserve() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	id := t.nextID()
	if t.reserved == nil {
		t.reserved = make(map[int]bool)
	}
	t.reserved[id] = true
	return id
}

// Release gives back an id from [Table.Reserve] whose job never started.
func (t *Table) Release(id int) {
	t.mu.Lock()
	delete(t.reserved, id)
	t.mu.Unlock()
}

// Add enters a job made by [NewEntry] or [NewInProcess] in the table;
// its id's reservation, if any, ends.
func (t *Table) Add(e *Entry) {
	t.mu.Lock()
	delete(t.reserved, e.id)
	t.jobs = append(t.jobs, e)
	t.mu.Unlock()
}

// Started notes a process the session started, the leader of its group,
// for the job e (nil in the foreground); nohup is true when it was
// started under nohup. A job's first process gives it its pid.
func (t *Table) Started(e *Entry, pid int, nohup bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.procs == nil {
		t.procs = make(map[int]*Entry)
		t.nohup = make(map[int]bool)
	}
	t.procs[pid] = e
	if nohup {
		t.nohup[pid] = true
	}
	if e != nil {
		e.pids = append(e.pids, pid)
		if e.firstPID == 0 {
			e.firstPID = pid
			close(e.running)
		}
	}
}

// Exited notes that a process [Table.Started] noted has been reaped.
func (t *Table) Exited(e *Entry, pid int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone != nil {
		t.gone.Broadcast()
	}
	delete(t.procs, pid)
	delete(t.nohup, pid)
	if e != nil {
		e.pids = slices.DeleteFunc(e.pids, func(p int) bool { return p == pid })
	}
}

// AwaitPID returns the pid the job e is known by ($!) once it is known:
// when its first process started, when it ended without one, when its
// first command ran in process ([Entry.RanInProcess]: no process of its
// own), or after wait, whichever comes first. A process that began to
// start by then ([Entry.BeginLaunch]) is waited for until it started or
// failed to, however loaded the machine. A job with no process then is
// known by its stand-in, MaxPID plus its id.
func (t *Table) AwaitPID(e *Entry, wait time.Duration) int {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-e.running:
	case <-e.done:
	case <-e.launch.begun:
	case <-e.launch.inProcess:
	case <-timer.C:
	}
	select {
	case <-e.launch.begun:
		select {
		case <-e.running:
		case <-e.done:
		case <-e.launch.ended:
		}
	default:
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.firstPID == 0 {
		e.firstPID = MaxPID + e.id
	}
	return e.firstPID
}

// Killed reports whether kill ended the job e: it runs nothing more.
func (t *Table) Killed(e *Entry) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return e.signal != 0
}

// Finish records that the job e ended with status; a job kill ended has
// 128+N, N the signal. jobs then lists it as finished; [Entry.Close]
// follows once what it held is released.
func (t *Table) Finish(e *Entry, status int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.signal != 0 {
		status = 128 + int(e.signal)
	}
	e.status, e.finished = status, true
}

// Running lists the jobs still running, oldest first.
func (t *Table) Running() []Job {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Job
	for _, j := range t.jobs {
		if !j.finished && !j.disowned {
			out = append(out, j.jobLocked())
		}
	}
	return out
}

// Len is how many jobs the table holds: those running, and those
// finished and not yet reported ([Jobs.Report]); a disowned job is not
// counted.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, j := range t.jobs {
		if !j.disowned {
			n++
		}
	}
	return n
}

// CancelAll ends every job of the table.
func (t *Table) CancelAll() {
	for _, j := range t.all() {
		j.cancel()
	}
}

// WaitAll waits until every job of the table is done ([Entry.Close]).
func (t *Table) WaitAll() {
	for _, j := range t.all() {
		<-j.done
	}
}

// WaitGone waits until no process of the session is alive, at most for
// d: those that the end of their call or job signalled are reaped first.
func (t *Table) WaitGone(d time.Duration) {
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

func (t *Table) all() []*Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.jobs)
}

// forget drops finished jobs that have been reported, and disowned ones
// that finished, remembering the status of each reported one by its pid.
func (t *Table) forget(done []*Entry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.jobs = slices.DeleteFunc(t.jobs, func(j *Entry) bool {
		if !j.finished {
			return false
		}
		if j.disowned {
			return true
		}
		if !slices.Contains(done, j) {
			return false
		}
		t.rememberLocked(j.firstPID, j.status)
		return true
	})
}

func (t *Table) rememberLocked(pid, status int) {
	if pid == 0 {
		return
	}
	if t.reaped == nil {
		t.reaped = make(map[int]int)
	}
	if _, ok := t.reaped[pid]; !ok {
		t.reapedOrder = append(t.reapedOrder, pid)
	}
	t.reaped[pid] = status
	if len(t.reapedOrder) > maxReaped {
		delete(t.reaped, t.reapedOrder[0])
		t.reapedOrder = t.reapedOrder[1:]
	}
}

func (t *Table) isFinished(e *Entry) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return e.finished
}

// owns reports whether pid is a live process of the session.
func (t *Table) owns(pid int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.procs[pid]
	return ok
}

func (t *Table) ownedPIDs() []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	pids := make([]int, 0, len(t.procs))
	for p := range t.procs {
		pids = append(pids, p)
	}
	slices.Sort(pids)
	return pids
}
