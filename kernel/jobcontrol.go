package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
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
		if _, err := strconv.Atoi(a); err == nil {
			// A pid: a job's, or none this shell knows (mvdan's own
			// background work is named g1, g2…).
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
	for i, j := range t.jobs {
		if runningOnly && j.finished {
			continue
		}
		if j.finished {
			reported = append(reported, j)
		}
		// As bash: + marks the current job, - the previous one.
		mark := ' '
		switch i {
		case len(t.jobs) - 1:
			mark = '+'
		case len(t.jobs) - 2:
			mark = '-'
		}
		switch {
		case pidsOnly:
			fmt.Fprintf(&b, "%d\n", j.pid())
		case long:
			fmt.Fprintf(&b, "[%d]%c %d %-24s%s\n", j.id, mark, j.pid(), j.state(), j.command)
		default:
			fmt.Fprintf(&b, "[%d]%c  %-24s%s\n", j.id, mark, j.state(), j.command)
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
	anyOne := false
	for _, a := range c.Args[1:] {
		if a == "--" {
			continue
		}
		if a == "-n" {
			anyOne = true
			continue
		}
		if isFlag(a) && !strings.HasPrefix(a, "%") {
			return unknownFlag("wait", a, "-n")
		}
		j := t.find(a)
		if j == nil {
			// bash's lines and status for a job or pid it does not know.
			if strings.HasPrefix(a, "%") {
				fmt.Fprintf(c.Stderr, "wait: %s: no such job\n", a)
			} else {
				fmt.Fprintf(c.Stderr, "wait: pid %s is not a child of this shell\n", a)
			}
			if anyOne {
				continue
			}
			return ExitStatus(127)
		}
		targets = append(targets, j)
	}
	all := len(targets) == 0
	if all {
		targets = t.all()
	}
	if anyOne {
		return waitAny(ctx, t, targets)
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

// waitAny answers wait -n: the status of the first of the jobs to end
// that was not yet reported, 127 when there is none.
func waitAny(ctx context.Context, t *jobTable, targets []*job) error {
	if len(targets) == 0 {
		return ExitStatus(127)
	}
	for _, j := range targets {
		if t.isFinished(j) {
			return waitReported(t, j)
		}
	}
	done := make(chan *job, len(targets))
	stop := make(chan struct{})
	defer close(stop)
	for _, j := range targets {
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
		return waitReported(t, j)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func waitReported(t *jobTable, j *job) error {
	t.mu.Lock()
	status := j.status
	t.mu.Unlock()
	t.forget([]*job{j})
	if status == 0 {
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
	if len(args) > 0 && (args[0] == "-l" || args[0] == "-L") {
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
			// bash's status for a bad signal is 1, not a usage error's 2.
			fmt.Fprintf(c.Stderr, "kill: unknown signal '%s'; allowed: a name such as TERM, INT, HUP, KILL, or a number (kill -l lists them)\n", name)
			return ExitStatus(1)
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

// signalNames are Linux's signal names as bash's kill -l prints them.
var signalNames = map[int]string{
	1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 5: "TRAP", 6: "ABRT", 7: "BUS", 8: "FPE",
	9: "KILL", 10: "USR1", 11: "SEGV", 12: "USR2", 13: "PIPE", 14: "ALRM", 15: "TERM",
	16: "STKFLT", 17: "CHLD", 18: "CONT", 19: "STOP", 20: "TSTP", 21: "TTIN", 22: "TTOU",
	23: "URG", 24: "XCPU", 25: "XFSZ", 26: "VTALRM", 27: "PROF", 28: "WINCH", 29: "IO",
	30: "PWR", 31: "SYS",
}

// signalName is the name of signal n without SIG, "" when there is none.
func signalName(n int) string {
	switch {
	case n == 34:
		return "RTMIN"
	case n > 34 && n <= 49:
		return fmt.Sprintf("RTMIN+%d", n-34)
	case n >= 50 && n < 64:
		return fmt.Sprintf("RTMAX-%d", 64-n)
	case n == 64:
		return "RTMAX"
	}
	return signalNames[n]
}

// signalTable is kill -l's table, byte for byte bash's.
func signalTable() string {
	var b strings.Builder
	col := 0
	for n := 1; n <= 64; n++ {
		name := signalName(n)
		if name == "" {
			continue
		}
		fmt.Fprintf(&b, "%2d) SIG%s", n, name)
		col++
		if col%5 == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte('\t')
		}
	}
	if col%5 != 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// listSignals answers kill -l and -L: the table, or for each argument the
// name of a number (a signal, or an exit status above 128) or the number
// of a name.
func listSignals(c *Call, args []string) error {
	if len(args) == 0 {
		_, err := io.WriteString(c.Stdout, signalTable())
		return err
	}
	var b strings.Builder
	failed := false
	for _, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil {
			sig, ok := parseSignal(a)
			if !ok {
				fmt.Fprintf(c.Stderr, "kill: %s: invalid signal specification\n", a)
				failed = true
				continue
			}
			fmt.Fprintln(&b, int(sig))
			continue
		}
		if n > 128 {
			n -= 128
		}
		name := signalName(n)
		if n == 0 {
			name = "EXIT"
		}
		if name == "" {
			fmt.Fprintf(c.Stderr, "kill: %s: invalid signal specification\n", a)
			failed = true
			continue
		}
		fmt.Fprintln(&b, name)
	}
	io.WriteString(c.Stdout, b.String())
	if failed {
		return ExitStatus(1)
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
