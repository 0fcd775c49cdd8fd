package jobtable

import (
	"context"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// add enters a job of the table's next id that no process runs.
func add(t *Table, command string) *Entry {
	e := NewEntry(t.NextID(), command, "", func() {})
	t.Add(e)
	return e
}

// TestIDsAsBash: a job's id is one more than the highest still known, so
// ids are reused once the latest jobs are reported.
func TestIDsAsBash(t *testing.T) {
	var tab Table
	a, b := add(&tab, "a"), add(&tab, "b")
	if a.id != 1 || b.id != 2 {
		t.Fatalf("ids %d, %d; want 1, 2", a.id, b.id)
	}
	js := tab.Jobs(0, nil)
	tab.Finish(b, 0)
	b.Close()
	js.Report(2)
	if got := tab.NextID(); got != 2 {
		t.Errorf("next id after %%2 was reported: %d, want 2", got)
	}
	tab.Finish(a, 0)
	js.Report(1)
	if got := tab.NextID(); got != 1 {
		t.Errorf("next id with no job: %d, want 1", got)
	}
}

// TestFind: %N, %%, %+ and the pids of a job's processes name it.
func TestFind(t *testing.T) {
	var tab Table
	a, b := add(&tab, "a"), add(&tab, "b")
	tab.Started(a, 100, false)
	tab.Started(a, 101, false)
	if got := tab.AwaitPID(b, 0); got != MaxPID+2 {
		t.Errorf("pid of a job with no process: %d, want %d", got, MaxPID+2)
	}
	js := tab.Jobs(0, nil)
	for spec, want := range map[string]int{"%1": 1, "%2": 2, "%%": 2, "%+": 2, "100": 1, "101": 1, "4194306": 2, "%3": 0, "102": 0, "x": 0} {
		got, ok := js.Find(spec)
		if ok != (want != 0) || got.ID != want {
			t.Errorf("Find(%q) = %d, %v; want %d", spec, got.ID, ok, want)
		}
	}
	if st, _ := js.Find("%1"); st.PID != 100 {
		t.Errorf("%%1's pid: %d, want its first process, 100", st.PID)
	}
	if _, ok := js.ByBang(101); ok {
		t.Error("ByBang found a job by a process that is not its first")
	}
}

// TestProcesses: the table owns the processes noted started until they
// exit, foreground ones included.
func TestProcesses(t *testing.T) {
	var tab Table
	a := add(&tab, "a")
	tab.Started(a, 7, false)
	tab.Started(nil, 3, false)
	js := tab.Jobs(0, nil)
	if got := js.Processes(); !slices.Equal(got, []int{3, 7}) {
		t.Errorf("Processes() = %v, want [3 7]", got)
	}
	tab.Exited(a, 7)
	tab.Exited(nil, 3)
	if got := js.Processes(); len(got) != 0 {
		t.Errorf("Processes() after both exited = %v", got)
	}
	if err := js.SignalProcess(7, 0); err == nil {
		t.Error("SignalProcess of an exited process succeeded")
	}
	tab.WaitGone(time.Hour) // none alive: returns at once
}

// TestKilledStatus: a job kill ended finishes with 128+N, and its call
// is cancelled; wait gives that status once the job is done.
func TestKilledStatus(t *testing.T) {
	var tab Table
	cancelled := make(chan struct{})
	e := NewEntry(tab.NextID(), "sleep 9", "", func() { close(cancelled) })
	tab.Add(e)
	js := tab.Jobs(0, nil)
	if err := js.Signal(1, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-cancelled
	if !tab.Killed(e) {
		t.Error("Killed is false after SIGTERM")
	}
	go func() {
		tab.Finish(e, 0)
		e.Close()
	}()
	status, err := js.Wait(context.Background(), 1)
	if err != nil || status != 128+int(syscall.SIGTERM) {
		t.Errorf("Wait = %d, %v; want %d", status, err, 128+int(syscall.SIGTERM))
	}
	if err := js.Signal(1, syscall.SIGTERM); err == nil {
		t.Error("Signal of a finished job succeeded")
	}
}

// TestSelfUnseen: a yielded call does not see the job it became.
func TestSelfUnseen(t *testing.T) {
	var tab Table
	self := NewInProcess(tab.NextID(), "yielded", "", func() {})
	tab.Add(self)
	other := add(&tab, "other")
	js := tab.Jobs(0, self)
	if got := js.List(); len(got) != 1 || got[0].ID != other.id {
		t.Errorf("List() = %v, want only %%2", got)
	}
	if _, err := js.Wait(context.Background(), 1); err == nil {
		t.Error("Wait for its own job succeeded")
	}
	if got := tab.Running(); len(got) != 2 || got[0].PID != MaxPID+1 {
		t.Errorf("Running() = %v, want both, the yielded one at its stand-in pid", got)
	}
}

// TestReserveGivesEachStartItsID: a yielded call and the next call may
// start jobs at once; each start reserves its id before it makes the
// job's log, so no two jobs share an id, and an id given back is free.
func TestReserveGivesEachStartItsID(t *testing.T) {
	var tab Table
	const starts = 50
	ids := make(chan int, starts)
	var wg sync.WaitGroup
	for range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := tab.Reserve()
			ids <- id
			tab.Add(NewEntry(id, "x", "", func() {}))
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[int]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("id %d given twice", id)
		}
		seen[id] = true
	}
	id := tab.Reserve()
	if id != starts+1 {
		t.Errorf("Reserve after %d jobs = %d, want %d", starts, id, starts+1)
	}
	if next := tab.NextID(); next != starts+2 {
		t.Errorf("NextID while %d is reserved = %d, want %d", id, next, starts+2)
	}
	tab.Release(id)
	if next := tab.NextID(); next != starts+1 {
		t.Errorf("NextID after Release(%d) = %d, want %d", id, next, starts+1)
	}
}
