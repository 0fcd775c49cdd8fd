package jobtable

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Job is a background job still running after its call returned.
type Job struct {
	ID      int    `json:"id"`
	PID     int    `json:"pid"`
	Command string `json:"command"`
	Log     string `json:"log"`
}

// JobState is a job as [Jobs.List] found it.
type JobState struct {
	Job
	// Finished is true once the job ended; Status is then its exit
	// status, 128+N when signal N ended it.
	Finished bool
	Status   int
}

func (e *Entry) jobLocked() Job {
	return Job{ID: e.id, PID: e.pid(), Command: e.command, Log: e.log}
}

func (e *Entry) stateLocked() JobState {
	return JobState{Job: e.jobLocked(), Finished: e.finished, Status: e.status}
}

// Jobs is a session's background jobs (`cmd &`) and the processes it
// runs, as the jobs, wait and kill builtins see them. A job is named by
// its id, the N of %N. Calls on a session are serialised, so a job's id
// names the same job for the whole of a tool's run.
type Jobs struct {
	t     *Table
	grace time.Duration
	self  *Entry // a yielded call's own job, which it does not see
}

// Jobs is the view of the table of a call: self is the job the call
// became when it yielded (nil for none), which it does not see, and
// grace the session's time between SIGTERM and SIGKILL.
func (t *Table) Jobs(grace time.Duration, self *Entry) *Jobs {
	return &Jobs{t: t, grace: grace, self: self}
}

// List returns the jobs the session still knows, oldest first: those
// running, and those finished and not yet reported ([Jobs.Report]).
func (js *Jobs) List() []JobState {
	t := js.t
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]JobState, 0, len(t.jobs))
	for _, j := range t.jobs {
		if j != js.self && !j.disowned {
			out = append(out, j.stateLocked())
		}
	}
	return out
}

// Find resolves a job's name as bash does: %N, %% or %+ (the latest
// job), %- (the one before it), %NAME (the job whose command starts with
// NAME), %?TEXT (the job whose command holds TEXT), or the pid of one of
// its processes. ok is false when no job known has that name, or when
// more than one has it.
func (js *Jobs) Find(spec string) (JobState, bool) {
	j := js.t.find(spec)
	if j == nil {
		return JobState{}, false
	}
	js.t.mu.Lock()
	defer js.t.mu.Unlock()
	return j.stateLocked(), true
}

// find resolves a job spec or the pid of a job to the job; a disowned
// job has no name.
func (t *Table) find(spec string) *Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	jobs := make([]*Entry, 0, len(t.jobs))
	for _, j := range t.jobs {
		if !j.disowned {
			jobs = append(jobs, j)
		}
	}
	n, isSpec := strings.CutPrefix(spec, "%")
	if !isSpec {
		pid, err := strconv.Atoi(spec)
		if err != nil || pid <= 0 {
			return nil
		}
		for _, j := range jobs {
			if j.firstPID == pid || slices.Contains(j.pids, pid) {
				return j
			}
		}
		return nil
	}
	if len(jobs) == 0 {
		return nil
	}
	switch n {
	case "", "%", "+":
		return jobs[len(jobs)-1]
	case "-":
		return jobs[max(len(jobs)-2, 0)]
	}
	if id, err := strconv.Atoi(n); err == nil {
		for _, j := range jobs {
			if j.id == id {
				return j
			}
		}
		return nil
	}
	match := func(j *Entry) bool { return strings.HasPrefix(j.command, n) }
	if text, ok := strings.CutPrefix(n, "?"); ok {
		match = func(j *Entry) bool { return strings.Contains(j.command, text) }
	}
	var found *Entry
	for _, j := range jobs {
		if match(j) {
			if found != nil {
				return nil // ambiguous, as bash refuses it
			}
			found = j
		}
	}
	return found
}

// Disown drops the jobs of those ids from the jobs the script sees, as
// bash's disown: jobs, wait and kill no longer name them and they no
// longer hold an id, but they run on, and the session's Close ends them.
func (js *Jobs) Disown(ids ...int) {
	t := js.t
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, j := range t.jobs {
		if j != js.self && slices.Contains(ids, j.id) {
			j.disowned = true
		}
	}
}

// Reaped is the status of the job known by pid ($!) that wait or jobs
// already reported, as bash remembers it; ok is false for a pid of no
// such job.
func (js *Jobs) Reaped(pid int) (status int, ok bool) {
	t := js.t
	t.mu.Lock()
	defer t.mu.Unlock()
	status, ok = t.reaped[pid]
	return status, ok
}

// ByBang is the job whose $! is pid: the pid of the first process it
// started, or the id it has while it started none. A job is more than its
// first process (a group, a subshell, a loop), as bash's $! names the
// subshell that runs the whole job; for a pipeline bash's $! is its last
// process (a listed gap).
func (js *Jobs) ByBang(pid int) (JobState, bool) {
	t := js.t
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, j := range t.jobs {
		if j != js.self && !j.disowned && j.firstPID == pid {
			return j.stateLocked(), true
		}
	}
	return JobState{}, false
}

// Report marks jobs as reported to the script: those of the ids that have
// finished leave the list. A running one stays.
func (js *Jobs) Report(ids ...int) {
	js.t.forget(js.byID(ids))
}

func (js *Jobs) byID(ids []int) []*Entry {
	var out []*Entry
	for _, j := range js.t.all() {
		if j != js.self && !j.disowned && slices.Contains(ids, j.id) {
			out = append(out, j)
		}
	}
	return out
}

// Wait waits for the job of that id to finish and returns its status. The
// error is ctx's when ctx ended first, and an error when no job has that id.
func (js *Jobs) Wait(ctx context.Context, id int) (int, error) {
	_, status, err := js.WaitAny(ctx, id)
	return status, err
}

// WaitAny waits until one of the jobs of those ids has finished (at once
// when one has already) and returns its id and status. The error is
// ctx's when ctx ended first, and an error when no id names a job.
func (js *Jobs) WaitAny(ctx context.Context, ids ...int) (id, status int, err error) {
	jobs := js.byID(ids)
	if len(jobs) == 0 {
		return 0, 0, fmt.Errorf("no job of the session has id %v", ids)
	}
	t := js.t
	for _, j := range jobs {
		if t.isFinished(j) {
			return js.status(j)
		}
	}
	done := make(chan *Entry, len(jobs))
	stop := make(chan struct{})
	defer close(stop)
	for _, j := range jobs {
		go func() {
			select {
			case <-j.done:
				done <- j
			case <-stop:
			}
		}()
	}
	select {
	case j := <-done:
		return js.status(j)
	case <-ctx.Done():
		return 0, 0, ctx.Err()
	}
}

func (js *Jobs) status(j *Entry) (int, int, error) {
	<-j.done
	js.t.mu.Lock()
	defer js.t.mu.Unlock()
	return j.id, j.status, nil
}

// Signal sends sig to every process group of the running job of that id.
// A signal whose default action ends a process also ends the job: it
// starts no further command, and what still runs after the session's kill
// grace (at once for TERM and KILL) gets SIGTERM, the grace, SIGKILL.
// SIGHUP passes over the processes started under nohup (the launch's
// NoHUP).
func (js *Jobs) Signal(id int, sig syscall.Signal) error {
	jobs := js.byID([]int{id})
	if len(jobs) == 0 || js.t.isFinished(jobs[0]) {
		return fmt.Errorf("%%%d: no such job", id)
	}
	return js.t.signalJob(jobs[0], sig, js.grace)
}

// Processes returns the pids of the session's live processes, the leader
// of each process group it started (foreground and jobs), sorted.
func (js *Jobs) Processes() []int { return js.t.ownedPIDs() }

// SignalProcess sends sig to one live process of the session; it refuses
// any other pid. SIGHUP passes over a process started under nohup.
func (js *Jobs) SignalProcess(pid int, sig syscall.Signal) error {
	if !js.t.owns(pid) {
		return fmt.Errorf("%d: not a process of this session", pid)
	}
	return js.t.signalProcess(pid, sig)
}
