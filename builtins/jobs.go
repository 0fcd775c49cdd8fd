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
	usage: "jobs [-l] [-p] [-r]",
	about: "List the session's background jobs: running ones, and finished ones once. -l adds pids, -p prints pids only, -r lists running jobs only.",
	run:   runJobs,
}

var waitBuiltin = &shellBuiltin{
	name:  "wait",
	usage: "wait [-n] [%N|PID]...",
	about: "Wait for the session's background jobs (all of them, or those named) and exit with the status of the last one named; -n: of the first to end.",
	run:   runWait,
}

var killBuiltin = &shellBuiltin{
	name:  "kill",
	usage: "kill [-s SIG | -n NUM | -SIG] %N|PID...  or  kill -l [NUM]",
	about: "Send a signal (TERM unless named) to a background job of the session or to one of its processes; no other process can be signalled. A job sent a signal that ends a process runs nothing more.",
	run:   runKill,
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
}}

func runJobs(_ context.Context, c *kernel.Call) error {
	read, err := jobsFlags.Parse(c.Args[1:])
	if err != nil {
		return flagRefusal(err)
	}
	if len(read.Operands) > 0 {
		return &kernel.Refusal{Command: "jobs", What: "unexpected argument " + kernel.Quote(read.Operands[0]) + ": jobs takes flags only", Allowed: jobsFlags.Pool()}
	}
	var long, pidsOnly, runningOnly bool
	for _, f := range read.Flags {
		switch f.Name {
		case "-l":
			long = true
		case "-p":
			pidsOnly = true
		case "-r":
			runningOnly = true
		}
	}
	js := c.Jobs()
	list := js.List()
	var reported []int
	var b strings.Builder
	for i, j := range list {
		if runningOnly && j.Finished {
			continue
		}
		if j.Finished {
			reported = append(reported, j.ID)
		}
		// As bash: + marks the current job, - the previous one.
		mark := ' '
		switch i {
		case len(list) - 1:
			mark = '+'
		case len(list) - 2:
			mark = '-'
		}
		switch {
		case pidsOnly:
			fmt.Fprintf(&b, "%d\n", j.PID)
		case long:
			fmt.Fprintf(&b, "[%d]%c %d %-24s%s\n", j.ID, mark, j.PID, jobState(j), j.Command)
		default:
			fmt.Fprintf(&b, "[%d]%c  %-24s%s\n", j.ID, mark, jobState(j), j.Command)
		}
	}
	js.Report(reported...)
	_, err = fmt.Fprint(c.Stdout, b.String())
	return err
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

func runWait(ctx context.Context, c *kernel.Call) error {
	js := c.Jobs()
	var targets []int
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
		j, ok := js.Find(a)
		if !ok {
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
	}
	all := len(targets) == 0
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
	if all {
		return nil
	}
	return status(code)
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
			if j, ok := js.Find(a); ok && !j.Finished {
				targets = append(targets, target{job: j.ID})
				continue
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
