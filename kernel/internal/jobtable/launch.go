package jobtable

import "sync"

// launchNote is the first start of a process of a job: begun and ended
// are closed once each, by the first start only, and inProcess once a
// command of the job ran in process before any start; a zero launchNote
// (a job made by NewInProcess) notes nothing.
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

// RanInProcess notes a command of the job that runs in shelter's
// process (a builtin): until a process starts, the job has no pid to
// wait for ([Table.AwaitPID]).
func (e *Entry) RanInProcess() {
	if e.launch.inProcess != nil {
		e.launch.markInProcess()
	}
}

// BeginLaunch notes a process of the job about to start; the end it
// returns notes that it started or failed to. [Table.AwaitPID] waits for
// the first such start to end.
func (e *Entry) BeginLaunch() (end func()) {
	if e.launch.begun == nil {
		return func() {}
	}
	e.launch.markBegun()
	return e.launch.markEnd
}
