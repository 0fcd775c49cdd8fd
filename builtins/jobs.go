package builtins

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/internal/signame"
	"github.com/shelter-sh/shelter/kernel"
)

// jobs, wait and kill are the session's job control, over
// [kernel.Call.Jobs]: they see the session's background jobs (`cmd &`)
// and its processes, and no other process.

var jobsBuiltin = &shellBuiltin{
	name:  "jobs",
	usage: "jobs [-l] [-p] [-r] [-s] [%N...]",
	about: "List the session's background jobs (all, or those named): running ones, and finished ones once. -l adds pids, -p prints pids only, -r lists running jobs only, -s stopped ones (there are none).",
	run:   runJobs,
}

var waitBuiltin = &shellBuiltin{
	name:  "wait",
	usage: "wait [-fn] [-p VAR] [%N|PID]...",
	about: "Wait for the session's background jobs (all of them, or those named) and exit with the status of the last one named; -n: of the first to end. -f is accepted (shelter has no stopped jobs); -p VAR sets VAR to the pid waited for.",
	run:   runWait,
}

var disownBuiltin = &shellBuiltin{
	name:  "disown",
	usage: "disown [-h] [-ar] [%N|PID]...",
	about: "Drop jobs (the current one, those named, all with -a, the running ones with -r) from the jobs the script sees: they run on, and end with the session. -h keeps them listed.",
	run:   runDisown,
	ownsH: true,
}

var fgBuiltin = &shellBuiltin{
	name:  "fg",
	usage: "fg [%N]",
	about: "Fails as in a bash script: a session has no job control (wait %N waits for a job).",
	run:   noJobControl("fg"),
}

var bgBuiltin = &shellBuiltin{
	name:  "bg",
	usage: "bg [%N]...",
	about: "Fails as in a bash script: a session has no job control (its jobs run in the background already).",
	run:   noJobControl("bg"),
}

// unknownFlag is the refusal of a flag a builtin does not take.
func unknownFlag(cmd, flag string, allowed ...string) error {
	return &kernel.Refusal{Command: cmd, What: "unknown flag " + kernel.Quote(flag), Allowed: allowed}
}

func isFlag(w string) bool { return len(w) > 1 && w[0] == '-' }

// jobsFlags are jobs' flags, read as bash's getopt does: -lp is -l -p,
// and the first operand ends them.
var jobsFlags = &argv.Set{Command: "jobs", Syntax: argv.GNU, Flags: []*argv.Flag{
	{Names: []string{"-l"}, About: "add each job's pid"},
	{Names: []string{"-p"}, About: "print pids only"},
	{Names: []string{"-r"}, About: "list running jobs only"},
	{Names: []string{"-s"}, About: "list stopped jobs only (a session has none)"},
}}

func runJobs(_ context.Context, c *kernel.Call) error {
	read, err := jobsFlags.Parse(c.Args[1:])
	if err != nil {
		return flagRefusal(err)
	}
	var long, pidsOnly, runningOnly, stoppedOnly bool
	for _, f := range read.Flags {
		switch f.Name {
		case "-l":
			long = true
		case "-p":
			pidsOnly = true
		case "-r":
			runningOnly = true
		case "-s":
			stoppedOnly = true
		}
	}
	js := c.Jobs()
	list := js.List()
	// As bash: + marks the current job, - the previous one.
	marks := make(map[int]byte, len(list))
	for i, j := range list {
		switch i {
		case len(list) - 1:
			marks[j.ID] = '+'
		case len(list) - 2:
			marks[j.ID] = '-'
		default:
			marks[j.ID] = ' '
		}
	}
	failed := false
	if len(read.Operands) > 0 {
		named := list[:0:0]
		for _, a := range read.Operands {
			j, ok := js.Find(a)
			if !ok {
				fmt.Fprintf(c.Stderr, "jobs: %s: no such job\n", a)
				failed = true
				continue
			}
			named = append(named, j)
		}
		list = named
	}
	var reported []int
	var b strings.Builder
	for _, j := range list {
		if runningOnly && j.Finished || stoppedOnly {
			continue
		}
		if j.Finished {
			reported = append(reported, j.ID)
		}
		switch {
		case pidsOnly:
			fmt.Fprintf(&b, "%d\n", j.PID)
		case long:
			fmt.Fprintf(&b, "[%d]%c %d %-24s%s\n", j.ID, marks[j.ID], j.PID, jobState(j), j.Command)
		default:
			fmt.Fprintf(&b, "[%d]%c  %-24s%s\n", j.ID, marks[j.ID], jobState(j), j.Command)
		}
	}
	js.Report(reported...)
	if _, err = fmt.Fprint(c.Stdout, b.String()); err != nil {
		return err
	}
	if failed {
		return kernel.ExitStatus(1)
	}
	return nil
}

// jobState is a job's state as bash's jobs shows it.
func jobState(j kernel.JobState) string {
	switch {
	case !j.Finished:
		return "Running"
	case j.Status == 0:
		return "Done"
	case j.Status > 128 && j.Status < 128+65:
		return signame.Title(syscall.Signal(j.Status - 128))
	}
	return fmt.Sprintf("Exit %d", j.Status)
}

var waitFlags = []string{"-f", "-n", "-p VAR"}

func runWait(ctx context.Context, c *kernel.Call) error {
	var targets []int
	anyOne := false
	args := c.Args[1:]
	for len(args) > 0 && isFlag(args[0]) && !strings.HasPrefix(args[0], "%") {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		for i := 1; i < len(a); i++ {
			switch a[i] {
			case 'n':
				anyOne = true
			case 'f':
				// No job of a session is ever stopped: waiting for its
				// end is what wait does.
			case 'p':
				// The variable is the interpreter's to set, which a tool
				// cannot: bash's status stands, the variable is left.
				if i == len(a)-1 {
					if len(args) == 0 {
						return &kernel.Refusal{Command: "wait", What: "flag '-p' needs a variable name", Allowed: waitFlags}
					}
					args = args[1:]
				}
				i = len(a)
			default:
				return unknownFlag("wait", "-"+string(a[i]), waitFlags...)
			}
		}
	}
	js := c.Jobs()
	last := -1 // the status of the last pid named, when wait had reported it already
	for _, a := range args {
		j, ok := js.Find(a)
		if !ok {
			if pid, err := strconv.Atoi(a); err == nil {
				if st, known := js.Reaped(pid); known {
					last = st
					continue
				}
			}
			// bash's lines and status for a job or pid it does not know.
			if strings.HasPrefix(a, "%") {
				fmt.Fprintf(c.Stderr, "wait: %s: no such job\n", a)
			} else {
				fmt.Fprintf(c.Stderr, "wait: pid %s is not a child of this shell\n", a)
			}
			if anyOne {
				continue
			}
			return kernel.ExitStatus(127)
		}
		targets = append(targets, j.ID)
		last = -1
	}
	all := len(args) == 0
	if all {
		for _, j := range js.List() {
			targets = append(targets, j.ID)
		}
	}
	if anyOne {
		// The first of the jobs to end that was not yet reported, 127
		// when there is none.
		if len(targets) == 0 {
			return kernel.ExitStatus(127)
		}
		id, code, err := js.WaitAny(ctx, targets...)
		if err != nil {
			return err
		}
		js.Report(id)
		return status(code)
	}
	code := 0
	for _, id := range targets {
		var err error
		if code, err = js.Wait(ctx, id); err != nil {
			return err
		}
	}
	js.Report(targets...)
	switch {
	case all:
		return nil
	case last >= 0:
		return status(last)
	}
	return status(code)
}

func runDisown(_ context.Context, c *kernel.Call) error {
	args := c.Args[1:]
	keep, all, running := false, false, false
	for len(args) > 0 && isFlag(args[0]) && !strings.HasPrefix(args[0], "%") {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		for _, f := range a[1:] {
			switch f {
			case 'h':
				keep = true
			case 'a':
				all = true
			case 'r':
				running = true
			default:
				return unknownFlag("disown", "-"+string(f), "-a", "-h", "-r")
			}
		}
	}
	js := c.Jobs()
	var ids []int
	failed := false
	switch {
	case len(args) > 0:
		for _, a := range args {
			j, ok := js.Find(a)
			if !ok {
				fmt.Fprintf(c.Stderr, "disown: %s: no such job\n", a)
				failed = true
				continue
			}
			ids = append(ids, j.ID)
		}
	case all || running:
		for _, j := range js.List() {
			if !running || !j.Finished {
				ids = append(ids, j.ID)
			}
		}
	default:
		j, ok := js.Find("%+")
		if !ok {
			fmt.Fprintln(c.Stderr, "disown: current: no such job")
			return kernel.ExitStatus(1)
		}
		ids = append(ids, j.ID)
	}
	if !keep {
		// -h: shelter sends no SIGHUP when a session ends, so the job
		// needs nothing more.
		js.Disown(ids...)
	}
	if failed {
		return kernel.ExitStatus(1)
	}
	return nil
}

// noJobControl is fg and bg as bash runs them in a script, where job
// control is off: they fail with status 1.
func noJobControl(name string) func(context.Context, *kernel.Call) error {
	return func(_ context.Context, c *kernel.Call) error {
		fmt.Fprintf(c.Stderr, "%s: no job control\n", name)
		return kernel.ExitStatus(1)
	}
}

var killBuiltin = &shellBuiltin{
	name:  "kill",
	usage: "kill [-s SIG | -n NUM | -SIG] %N|PID...  or  kill -l [NUM]",
	about: "Send a signal (TERM unless named) to a background job of the session or to one of its processes; no other process can be signalled. A job sent a signal that ends a process runs nothing more.",
	run:   runKill,
}

var killFlags = []string{"-SIGNAL", "-l", "-n NUM", "-s SIGNAL"}

func runKill(_ context.Context, c *kernel.Call) error {
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
				return &kernel.Refusal{Command: "kill", What: "flag " + kernel.Quote(args[0]) + " needs a signal", Allowed: []string{args[0] + " SIGNAL"}}
			}
			name, args = args[1], args[2:]
		default:
			name, args = args[0][1:], args[1:]
		}
		s, ok := signame.Parse(name)
		if !ok {
			if !strings.HasPrefix(name, "-") && (len(name) > 0 && name[0] >= 'a' && name[0] <= 'z') {
				return unknownFlag("kill", "-"+name, killFlags...)
			}
			// bash's status for a bad signal is 1, not a usage error's 2.
			fmt.Fprintln(c.Stderr, &kernel.Refusal{Command: "kill", What: "unknown signal " + kernel.Quote(name), Allowed: append(signalForms[:1:1], "a number (kill -l lists them)")})
			return kernel.ExitStatus(1)
		}
		sig = s
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	js := c.Jobs()
	if len(args) == 0 {
		return &kernel.Refusal{Command: "kill", What: "no job or process named", Allowed: targetPool(js)}
	}
	// Every target is checked before any is signalled.
	type target struct{ job, pid int }
	var targets []target
	for _, a := range args {
		if strings.HasPrefix(a, "%") {
			j, ok := js.Find(a)
			if ok && !j.Finished {
				targets = append(targets, target{job: j.ID})
				continue
			}
			if !ok {
				// No job of that name: bash's status 1, as for a bad
				// signal, with the refusal's line.
				fmt.Fprintln(c.Stderr, &kernel.Refusal{Command: "kill", What: kernel.Quote(a) + " is not a job or process of this session", Allowed: targetPool(js)})
				return kernel.ExitStatus(1)
			}
		} else if pid, err := strconv.Atoi(a); err == nil && pid > 0 {
			// $! names the whole job, as bash's names the subshell that
			// runs it; any other pid of the session, that process.
			if j, ok := js.ByBang(pid); ok && !j.Finished {
				targets = append(targets, target{job: j.ID})
				continue
			}
			if owns(js, pid) {
				targets = append(targets, target{pid: pid})
				continue
			}
		}
		return &kernel.Refusal{Command: "kill", What: kernel.Quote(a) + " is not a job or process of this session", Allowed: targetPool(js)}
	}
	failed := false
	for _, tg := range targets {
		var err error
		if tg.job != 0 {
			err = js.Signal(tg.job, sig)
		} else {
			err = js.SignalProcess(tg.pid, sig)
		}
		if err != nil {
			fmt.Fprintf(c.Stderr, "kill: %v\n", err)
			failed = true
		}
	}
	if failed {
		return kernel.ExitStatus(1)
	}
	return nil
}

func owns(js *kernel.Jobs, pid int) bool {
	for _, p := range js.Processes() {
		if p == pid {
			return true
		}
	}
	return false
}

// targetPool lists what kill may signal: the running jobs, then the live
// processes of the session, in that order, or (none).
func targetPool(js *kernel.Jobs) []string {
	var names []string
	for _, j := range js.List() {
		if !j.Finished {
			names = append(names, "%"+strconv.Itoa(j.ID))
		}
	}
	for _, pid := range js.Processes() {
		names = append(names, strconv.Itoa(pid))
	}
	return names
}

// listSignals answers kill -l and -L: the table, or for each argument the
// name of a number (a signal, or an exit status above 128) or the number
// of a name.
func listSignals(c *kernel.Call, args []string) error {
	if len(args) == 0 {
		_, err := fmt.Fprint(c.Stdout, signame.Table())
		return err
	}
	var b strings.Builder
	failed := false
	for _, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil {
			sig, ok := signame.Parse(a)
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
		name := signame.Name(n)
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
	fmt.Fprint(c.Stdout, b.String())
	if failed {
		return kernel.ExitStatus(1)
	}
	return nil
}
