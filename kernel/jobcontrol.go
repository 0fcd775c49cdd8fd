package kernel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shelter-sh/shelter/spawn"
)

var jobsBuiltin = &builtin{
	name:  "jobs",
	usage: "jobs [-l] [-p] [-r]",
	about: "List the session's background jobs: running ones, and finished ones once. -l adds pids, -p prints pids only, -r lists running jobs only.",
	run:   runJobs,
}

var waitBuiltin = &builtin{
	name:  "wait",
	usage: "wait [%N|PID]...",
	about: "Wait for the session's background jobs (all of them, or those named) and exit with the status of the last one named.",
	run:   runWait,
}

var killBuiltin = &builtin{
	name:  "kill",
	usage: "kill [-s SIG | -n NUM | -SIG] %N|PID...  or  kill -l [NUM]",
	about: "Send a signal (TERM unless named) to a background job of the session or to one of its processes; no other process can be signalled. A job sent a signal that ends a process runs nothing more.",
	run:   runKill,
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
	}
	return len(s.jobs.all()) > 0
}

func runJobs(_ context.Context, c *Call) error {
	var long, pidsOnly, runningOnly bool
	for _, a := range c.Args[1:] {
		switch a {
		case "-l":
			long = true
		case "-p":
			pidsOnly = true
		case "-r":
			runningOnly = true
		default:
			if isFlag(a) {
				return unknownFlag("jobs", a, "-l", "-p", "-r")
			}
			return &Refusal{Line: fmt.Sprintf("jobs: unexpected argument '%s'; jobs takes flags only (-l, -p, -r)", a)}
		}
	}
	t := &c.session.jobs
	var reported []*job
	t.mu.Lock()
	var b strings.Builder
	for _, j := range t.jobs {
		if runningOnly && j.finished {
			continue
		}
		if j.finished {
			reported = append(reported, j)
		}
		switch {
		case pidsOnly:
			fmt.Fprintf(&b, "%d\n", j.pid())
		case long:
			fmt.Fprintf(&b, "[%d]  %d  %s  %s\n", j.id, j.pid(), j.state(), j.command)
		default:
			fmt.Fprintf(&b, "[%d]  %s  %s\n", j.id, j.state(), j.command)
		}
	}
	t.mu.Unlock()
	t.forget(reported)
	_, err := fmt.Fprint(c.Stdout, b.String())
	return err
}

// state is a job's state as `jobs` shows it. t.mu must be held.
func (j *job) state() string {
	switch {
	case !j.finished:
		return "Running"
	case j.status == 0:
		return "Done"
	case j.status > 128 && j.status < 128+65:
		return signalTitle(syscall.Signal(j.status - 128))
	}
	return fmt.Sprintf("Exit %d", j.status)
}

func signalTitle(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "Terminated"
	case syscall.SIGKILL:
		return "Killed"
	}
	if name := unix.SignalName(sig); name != "" {
		return strings.TrimPrefix(name, "SIG")
	}
	return fmt.Sprintf("Signal %d", int(sig))
}

func runWait(ctx context.Context, c *Call) error {
	t := &c.session.jobs
	var targets []*job
	for _, a := range c.Args[1:] {
		if a == "--" {
			continue
		}
		if isFlag(a) && !strings.HasPrefix(a, "%") {
			return unknownFlag("wait", a)
		}
		j := t.find(a)
		if j == nil {
			return &Refusal{Line: fmt.Sprintf("wait: '%s' is not a job of this session; allowed: %s", a, t.jobPool())}
		}
		targets = append(targets, j)
	}
	all := len(targets) == 0
	if all {
		targets = t.all()
	}
	status := 0
	for _, j := range targets {
		select {
		case <-j.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		t.mu.Lock()
		status = j.status
		t.mu.Unlock()
	}
	t.forget(targets)
	if all || status == 0 {
		return nil
	}
	return ExitStatus(status)
}

// find resolves %N, %%, %+ or the pid of a job to the job.
func (t *jobTable) find(spec string) *job {
	t.mu.Lock()
	defer t.mu.Unlock()
	if spec == "%%" || spec == "%+" {
		if len(t.jobs) == 0 {
			return nil
		}
		return t.jobs[len(t.jobs)-1]
	}
	if n, ok := strings.CutPrefix(spec, "%"); ok {
		id, err := strconv.Atoi(n)
		if err != nil {
			return nil
		}
		for _, j := range t.jobs {
			if j.id == id {
				return j
			}
		}
		return nil
	}
	pid, err := strconv.Atoi(spec)
	if err != nil || pid <= 0 {
		return nil
	}
	for _, j := range t.jobs {
		if j.firstPID == pid || slices.Contains(j.pids, pid) {
			return j
		}
	}
	return nil
}

// jobPool lists the jobs of the session for a refusal: "%1, %2" or (none).
func (t *jobTable) jobPool() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var names []string
	for _, j := range t.jobs {
		names = append(names, "%"+strconv.Itoa(j.id))
	}
	return orderedPool(names)
}

// targetPool lists what kill may signal: the running jobs, then the live
// processes of the session.
func (t *jobTable) targetPool() string {
	t.mu.Lock()
	var names []string
	for _, j := range t.jobs {
		if !j.finished {
			names = append(names, "%"+strconv.Itoa(j.id))
		}
	}
	t.mu.Unlock()
	for _, pid := range t.ownedPIDs() {
		names = append(names, strconv.Itoa(pid))
	}
	return orderedPool(names)
}

// orderedPool joins names already in their order, or says (none).
func orderedPool(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

var killFlags = []string{"-SIGNAL", "-l", "-n NUM", "-s SIGNAL"}

func runKill(_ context.Context, c *Call) error {
	args := c.Args[1:]
	sig := syscall.SIGTERM
	if len(args) > 0 && args[0] == "-l" {
		return listSignals(c, args[1:])
	}
	if len(args) > 0 && isFlag(args[0]) && args[0] != "--" {
		var name string
		switch args[0] {
		case "-s", "-n":
			if len(args) < 2 {
				return missingValue("kill", args[0], "a signal")
			}
			name, args = args[1], args[2:]
		default:
			name, args = args[0][1:], args[1:]
		}
		s, ok := parseSignal(name)
		if !ok {
			if !strings.HasPrefix(name, "-") && (len(name) > 0 && name[0] >= 'a' && name[0] <= 'z') {
				return unknownFlag("kill", "-"+name, killFlags...)
			}
			return &Refusal{Line: fmt.Sprintf("kill: unknown signal '%s'; allowed: a name such as TERM, INT, HUP, KILL, or a number (kill -l lists them)", name)}
		}
		sig = s
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	t := &c.session.jobs
	if len(args) == 0 {
		return &Refusal{Line: fmt.Sprintf("kill: no job or process named; allowed: %s", t.targetPool())}
	}
	// Every target is checked before any is signalled.
	type target struct {
		job *job
		pid int
	}
	var targets []target
	for _, a := range args {
		if strings.HasPrefix(a, "%") {
			if j := t.find(a); j != nil && !t.isFinished(j) {
				targets = append(targets, target{job: j})
				continue
			}
		} else if pid, err := strconv.Atoi(a); err == nil && pid > 0 && t.owns(pid) {
			targets = append(targets, target{pid: pid})
			continue
		}
		return &Refusal{Line: fmt.Sprintf("kill: '%s' is not a job or process of this session; allowed: %s", a, t.targetPool())}
	}
	failed := false
	for _, tg := range targets {
		var err error
		if tg.job != nil {
			err = t.signalJob(tg.job, sig, c.session.grace())
		} else {
			err = t.signalProcess(tg.pid, sig)
		}
		if err != nil {
			fmt.Fprintf(c.Stderr, "kill: %v\n", err)
			failed = true
		}
	}
	if failed {
		return ExitStatus(1)
	}
	return nil
}

func (t *jobTable) isFinished(j *job) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return j.finished
}

// errJobKilled ends the script of a job that kill ended.
var errJobKilled = errors.New("job killed")

// ended reports whether kill ended the job.
func (t *jobTable) ended(j *job) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return j.signal != 0
}

// signalJob sends sig to every process group of the job. A signal whose
// default action ends a process also ends the job: it starts no further
// command, and what still runs after the grace (at once for TERM and
// KILL) gets the session's SIGTERM, grace, SIGKILL.
func (t *jobTable) signalJob(j *job, sig syscall.Signal, grace time.Duration) error {
	t.mu.Lock()
	pids := slices.Clone(j.pids)
	ignoring := 0
	for _, pid := range pids {
		if sig == syscall.SIGHUP && t.nohup[pid] {
			ignoring++
		}
	}
	ending := terminates(sig) && (ignoring == 0 || ignoring < len(pids))
	if ending && j.signal == 0 {
		j.signal = sig
	}
	nohup := make(map[int]bool, len(pids))
	for _, pid := range pids {
		nohup[pid] = t.nohup[pid]
	}
	t.mu.Unlock()
	for _, pid := range pids {
		if sig == syscall.SIGHUP && nohup[pid] {
			continue
		}
		if err := syscall.Kill(-pid, sig); err != nil && err != syscall.ESRCH {
			return fmt.Errorf("%%%d: %v", j.id, err)
		}
	}
	switch {
	case !ending:
	case sig == syscall.SIGTERM || sig == syscall.SIGKILL:
		j.cancel()
	default:
		// Let a process that handles the signal finish on its own.
		stop := time.AfterFunc(grace, j.cancel)
		go func() {
			<-j.done
			stop.Stop()
		}()
	}
	return nil
}

func (t *jobTable) signalProcess(pid int, sig syscall.Signal) error {
	t.mu.Lock()
	ignored := sig == syscall.SIGHUP && t.nohup[pid]
	t.mu.Unlock()
	if ignored {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("%d: %v", pid, err)
	}
	return nil
}

// terminates reports whether a signal's default action ends a process.
func terminates(sig syscall.Signal) bool {
	switch sig {
	case 0, syscall.SIGCONT, syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU,
		syscall.SIGCHLD, syscall.SIGWINCH, syscall.SIGURG:
		return false
	}
	return true
}

// parseSignal reads a signal as a number, a name or a name with SIG.
func parseSignal(s string) (syscall.Signal, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 0 && n < 65 {
			return syscall.Signal(n), true
		}
		return 0, false
	}
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if sig := unix.SignalNum(name); sig != 0 {
		return sig, true
	}
	return 0, false
}

// listSignals answers kill -l: every name, or the name of one number (a
// signal or an exit status above 128).
func listSignals(c *Call, args []string) error {
	if len(args) == 0 {
		var names []string
		for sig := syscall.Signal(1); sig < 32; sig++ {
			if name := unix.SignalName(sig); name != "" {
				names = append(names, strings.TrimPrefix(name, "SIG"))
			}
		}
		_, err := fmt.Fprintln(c.Stdout, strings.Join(names, " "))
		return err
	}
	for _, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil {
			sig, ok := parseSignal(a)
			if !ok {
				return &Refusal{Line: fmt.Sprintf("kill: unknown signal '%s'; allowed: a name or a number (kill -l lists them)", a)}
			}
			fmt.Fprintln(c.Stdout, int(sig))
			continue
		}
		if n > 128 {
			n -= 128
		}
		name := unix.SignalName(syscall.Signal(n))
		if name == "" {
			return &Refusal{Line: fmt.Sprintf("kill: unknown signal '%s'; allowed: 1 to 31 (kill -l lists them)", a)}
		}
		fmt.Fprintln(c.Stdout, strings.TrimPrefix(name, "SIG"))
	}
	return nil
}

// grace is the session's time between SIGTERM and SIGKILL.
func (s *Session) grace() time.Duration {
	if g := s.k.cfg.KillGrace; g != 0 {
		return max(g, 0)
	}
	return spawn.DefaultGrace
}
