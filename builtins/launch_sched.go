package builtins

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

// The launchers here change how a program is scheduled or buffered.
// shelter starts every program itself, in a process group of its own,
// and sets nothing on it between fork and exec but its limits and umask
// (spawn's discipline); what each does with its asks:
//
//   - setsid runs its command as shelter runs every program: the leader
//     of a process group of its own and, off a terminal, of a session of
//     its own too, under the call's kill discipline either way; -w is
//     accepted, as shelter always waits, and -f without -w, which would
//     return at once and leave the command running, is refused with a
//     line naming a job (&) instead.
//   - stdbuf checks its modes and runs the command as it is: stdbuf(1)
//     works by preloading a library into the program (LD_PRELOAD), which
//     shelter keeps from every program it starts. In-process commands
//     write unbuffered anyway.
//   - ionice checks its class and level and runs the command as it is: a
//     documented no-op, as shelter sets no I/O priority.
//   - taskset checks its mask or list and refuses: an affinity set after
//     the program started would leave what it started first unpinned.
//   - chrt runs its command under -o 0, the policy it has anyway, and
//     refuses the real-time policies (-f, -r, chrt's default, -d) and -b
//     and -i, which shelter cannot set before the program starts.

var launchSetsid = &launcher{
	name:  "setsid",
	usage: "[-f] [-w] COMMAND [ARG]...",
	about: "Run a command through the session's own rules, as every program shelter starts: in a process group of its own and, off a terminal, a session of its own; it stays under the call's timeout, cancel and Close.",
	opts: []option{
		{short: 'f', long: "fork", about: "only with -w: a command cannot outlive its call; run it as a job (COMMAND &)"},
		{short: 'w', long: "wait", about: "accepted: shelter always waits for the command and returns its status"},
	},
	command: true,
	check:   checkSetsid,
	run:     runPlain,
}

func checkSetsid(a *launchArgs) error {
	if a.has("fork") && !a.has("wait") {
		return &kernel.Refusal{Command: "setsid", What: "flag '-f' without -w is not supported: it would leave the command running past its call", Allowed: []string{"-f -w", "COMMAND & (a job, which ends with the session)"}}
	}
	return nil
}

// runPlain runs the command as it is, with the call's streams.
func runPlain(ctx context.Context, c *kernel.Call, a *launchArgs) error {
	code, err := c.Launch(ctx, a.argv(), kernel.LaunchOptions{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr})
	return launched(ctx, code, err)
}

var launchStdbuf = &launcher{
	name:  "stdbuf",
	usage: "-i MODE | -o MODE | -e MODE... COMMAND [ARG]...",
	about: "Run a command through the session's own rules; its buffering modes (L, 0, or a size such as 4K) are checked, not applied.",
	opts: []option{
		{short: 'i', long: "input", arg: "MODE", about: "standard input's buffering: 0 or a size"},
		{short: 'o', long: "output", arg: "MODE", about: "standard output's buffering: L, 0 or a size"},
		{short: 'e', long: "error", arg: "MODE", about: "standard error's buffering: L, 0 or a size"},
	},
	command: true,
	check:   checkStdbuf,
	run:     runPlain,
}

var bufferSize = lazyRegexp(`^[0-9]+([KMGTPEZY](iB|B)?|kB|B)?$`)

func checkStdbuf(a *launchArgs) error {
	if len(a.order) == 0 {
		return &kernel.Refusal{Command: "stdbuf", What: "missing a buffering mode", Allowed: []string{"-i MODE", "-o MODE", "-e MODE"}}
	}
	for _, key := range []string{"input", "output", "error"} {
		for _, v := range a.set[key] {
			switch {
			case v == "L" && key == "input":
				return &kernel.Refusal{Command: "stdbuf", What: "invalid mode 'L' for standard input (line buffering input means nothing)", Allowed: []string{"0", "a size"}}
			case v == "L", bufferSize().MatchString(v):
			default:
				return &kernel.Refusal{Command: "stdbuf", What: "invalid mode " + kernel.Quote(v), Allowed: []string{"L", "0", "a size such as 4096, 4K, 1M"}}
			}
		}
	}
	return nil
}

var launchIonice = &launcher{
	name:  "ionice",
	usage: "[-c CLASS] [-n LEVEL] [-t] COMMAND [ARG]...",
	about: "Run a command through the session's own rules; its I/O class (0-3 or a name) and level (0-7) are checked, not applied.",
	opts: []option{
		{short: 'c', long: "class", arg: "CLASS", about: "the class: 0/none, 1/realtime, 2/best-effort, 3/idle"},
		{short: 'n', long: "classdata", arg: "LEVEL", about: "the level within the class, 0 (highest) to 7"},
		{short: 't', long: "ignore", about: "run the command even when the priority cannot be set"},
	},
	command: true,
	check:   checkIonice,
	run:     runPlain,
}

var ioClasses = map[string]bool{
	"0": true, "none": true, "1": true, "realtime": true,
	"2": true, "best-effort": true, "3": true, "idle": true,
}

func checkIonice(a *launchArgs) error {
	if v, ok := lastValue(a, "class"); ok && !ioClasses[strings.ToLower(v)] {
		return &kernel.Refusal{Command: "ionice", What: "unknown class " + kernel.Quote(v), Allowed: slices.Sorted(maps.Keys(ioClasses))}
	}
	if v, ok := lastValue(a, "classdata"); ok {
		if n, err := strconv.Atoi(v); err != nil || n < 0 || n > 7 {
			return &kernel.Refusal{Command: "ionice", What: "invalid level " + kernel.Quote(v), Allowed: []string{"an integer from 0 to 7"}}
		}
	}
	return nil
}

var launchTaskset = &launcher{
	name:  "taskset",
	usage: "[-a] [-c] MASK|LIST COMMAND [ARG]...",
	about: "Refused once its mask or list is checked: shelter cannot pin a program to CPUs before it starts.",
	opts: []option{
		{short: 'a', long: "all-tasks", about: "accepted: every thread"},
		{short: 'c', long: "cpu-list", about: "the operand is a list (0,2-4) rather than a hexadecimal mask"},
	},
	operands: []string{"MASK"},
	command:  true,
	check:    checkTaskset,
	run: func(_ context.Context, _ *kernel.Call, a *launchArgs) error {
		return &kernel.Refusal{Command: "taskset", What: "cannot pin " + kernel.Quote(a.command[0].Text) + " to CPUs: shelter cannot set affinity before a program starts", Allowed: []string{"the command without taskset"}}
	},
}

var (
	cpuMask = lazyRegexp(`^(0[xX])?[0-9a-fA-F]+(,[0-9a-fA-F]+)*$`)
	cpuList = lazyRegexp(`^[0-9]+(-[0-9]+(:[0-9]+)?)?(,[0-9]+(-[0-9]+(:[0-9]+)?)?)*$`)
)

func checkTaskset(a *launchArgs) error {
	v := a.operands[0]
	if a.has("cpu-list") {
		if !cpuList().MatchString(v) {
			return &kernel.Refusal{Command: "taskset", What: "invalid CPU list " + kernel.Quote(v), Allowed: []string{"numbers and ranges such as 0,2-4"}}
		}
		return nil
	}
	if !cpuMask().MatchString(v) {
		return &kernel.Refusal{Command: "taskset", What: "invalid CPU mask " + kernel.Quote(v), Allowed: []string{"a hexadecimal mask such as 0x3", "-c with a list"}}
	}
	return nil
}

var launchChrt = &launcher{
	name:  "chrt",
	usage: "-o|-b|-i [-R] PRIORITY COMMAND [ARG]...",
	about: "Run a command through the session's own rules under the normal scheduling policy (chrt -o 0); every other policy is refused.",
	opts: []option{
		{short: 'o', long: "other", about: "SCHED_OTHER, the normal policy (priority 0)"},
		{short: 'b', long: "batch", about: "SCHED_BATCH: refused"},
		{short: 'i', long: "idle", about: "SCHED_IDLE: refused"},
		{short: 'f', long: "fifo", about: "SCHED_FIFO, real-time: refused"},
		{short: 'r', long: "rr", about: "SCHED_RR, real-time (chrt's default): refused"},
		{short: 'd', long: "deadline", about: "SCHED_DEADLINE, real-time: refused"},
		{short: 'R', long: "reset-on-fork", about: "accepted: children get the normal policy anyway"},
	},
	operands: []string{"PRIORITY"},
	command:  true,
	check:    checkChrt,
	run:      runPlain,
}

func checkChrt(a *launchArgs) error {
	policy := a.last("other", "batch", "idle", "fifo", "rr", "deadline")
	switch policy {
	case "other":
	case "batch", "idle":
		return &kernel.Refusal{Command: "chrt", What: "policy " + kernel.Quote("--"+policy) + " is not available: shelter cannot set a scheduling policy before a program starts", Allowed: []string{"-o 0"}}
	case "":
		return &kernel.Refusal{Command: "chrt", What: "policy 'SCHED_RR' (chrt's default) is real-time and not available", Allowed: []string{"-o 0"}}
	default:
		return &kernel.Refusal{Command: "chrt", What: "policy " + kernel.Quote("--"+policy) + " is real-time and not available", Allowed: []string{"-o 0"}}
	}
	if n, err := strconv.Atoi(a.operands[0]); err != nil || n != 0 {
		return &kernel.Refusal{Command: "chrt", What: "invalid priority " + kernel.Quote(a.operands[0]) + " for SCHED_OTHER", Allowed: []string{"0"}}
	}
	return nil
}
