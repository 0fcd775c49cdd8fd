package builtins

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shelter-sh/shelter/internal/signame"
	"github.com/shelter-sh/shelter/kernel"
)

var launchTimeout = &launcher{
	name:  "timeout",
	usage: "[-s SIGNAL] [-k DURATION] [--preserve-status] DURATION COMMAND [ARG]...",
	about: "Run a command through the session's own rules and end it after DURATION (a number with an optional suffix s, m, h or d; 0 means no limit): SIGNAL (TERM) to its process group, SIGKILL after -k DURATION or the session's grace. Exits 124 when the time ran out.",
	opts: []option{
		{short: 's', long: "signal", arg: "SIGNAL", about: "the signal to send when the time runs out (TERM)"},
		{short: 'k', long: "kill-after", arg: "DURATION", about: "send KILL this long after the signal (default: the session's grace)"},
		{long: "preserve-status", about: "exit with the command's status even when the time ran out"},
	},
	operands: []string{"DURATION"},
	command:  true,
	check: func(a *launchArgs) error {
		_, err := readTimeout(a)
		return err
	},
	run: runTimeout,
}

// timeoutCall is timeout's call as read.
type timeoutCall struct {
	limit time.Duration
	sig   syscall.Signal // 0: not given
	grace time.Duration  // 0: not given; -1: kill at once
}

// signalForms are how timeout and kill take a signal, for a refusal.
var signalForms = []string{"a name such as TERM or KILL", "a number"}

func readTimeout(a *launchArgs) (timeoutCall, error) {
	var t timeoutCall
	if v, ok := lastValue(a, "signal"); ok {
		s, ok := signame.Parse(v)
		if !ok || s == 0 {
			return t, &kernel.Refusal{Command: "timeout", What: "unknown signal " + kernel.Quote(v), Allowed: signalForms}
		}
		t.sig = s
	}
	if v, ok := lastValue(a, "kill-after"); ok {
		d, err := parseDuration("timeout", v)
		if err != nil {
			return t, err
		}
		if d == 0 {
			d = -1
		}
		t.grace = d
	}
	d, err := parseDuration("timeout", a.operands[0])
	if err != nil {
		return t, err
	}
	t.limit = d
	return t, nil
}

func lastValue(a *launchArgs, key string) (string, bool) {
	v := a.set[key]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

func runTimeout(ctx context.Context, c *kernel.Call, a *launchArgs) error {
	t, err := readTimeout(a)
	if err != nil {
		return err
	}
	var l kernel.Launch
	if t.limit > 0 {
		l.Deadline, l.Signal, l.Grace = time.Now().Add(t.limit), t.sig, t.grace
		if l.Signal == 0 {
			l.Signal = syscall.SIGTERM
		}
		if l.Grace == 0 && l.Signal != syscall.SIGKILL {
			// Without -k, timeout(1) sends its signal only; shelter adds
			// the session's SIGKILL after its grace so that nothing
			// outlives its deadline for long.
			l.Grace = c.KillGrace()
		}
	}
	code, err := c.Launch(ctx, a.argv(), kernel.LaunchOptions{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Launch: l})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// The deadline in force may be an outer timeout's: this one reports
	// 124 only when its own time ran out.
	if errors.Is(err, context.DeadlineExceeded) || !l.Deadline.IsZero() && !time.Now().Before(l.Deadline) {
		switch {
		case a.has("preserve-status"):
		case code == 128+int(syscall.SIGKILL) && l.Signal != syscall.SIGKILL:
			// It needed SIGKILL, as timeout(1) reports.
		default:
			code = 124
		}
	}
	return status(code)
}

// parseDuration reads timeout(1)'s durations: a non-negative number, with
// a fraction or not, and an optional unit s, m, h or d.
func parseDuration(cmd, v string) (time.Duration, error) {
	unit := time.Second
	num := v
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 's':
			num = v[:n-1]
		case 'm':
			unit, num = time.Minute, v[:n-1]
		case 'h':
			unit, num = time.Hour, v[:n-1]
		case 'd':
			unit, num = 24*time.Hour, v[:n-1]
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(num, "xXpP_") {
		return 0, &kernel.Refusal{Command: cmd, What: "invalid duration " + kernel.Quote(v), Allowed: []string{"a number with an optional suffix s, m, h or d (5, 0.5, 1.5m, 2h, 1d)"}}
	}
	d := f * float64(unit)
	if d >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	if d > 0 && d < 1 {
		d = 1
	}
	return time.Duration(d), nil
}

var launchNohup = &launcher{
	name:    "nohup",
	usage:   "COMMAND [ARG]...",
	about:   "Run a command through the session's own rules so that `kill -HUP` passes over its processes; the session still ends it on Close.",
	command: true,
	run: func(ctx context.Context, c *kernel.Call, a *launchArgs) error {
		code, err := c.Launch(ctx, a.argv(), kernel.LaunchOptions{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Launch: kernel.Launch{NoHUP: true}})
		return launched(ctx, code, err)
	},
}

var launchNice = &launcher{
	name:  "nice",
	usage: "[-n ADJUSTMENT] [COMMAND [ARG]...]",
	about: "Run a command through the session's own rules with its niceness raised by ADJUSTMENT (10); without a command, print the niceness.",
	opts: []option{
		{short: 'n', long: "adjustment", arg: "ADJUSTMENT", about: "add ADJUSTMENT to the niceness (10); -ADJUSTMENT is the old spelling"},
	},
	numeric: "adjustment",
	check: func(a *launchArgs) error {
		_, err := niceAdjustment(a)
		return err
	},
	run: runNice,
}

func niceAdjustment(a *launchArgs) (int, error) {
	v, ok := lastValue(a, "adjustment")
	if !ok {
		return 10, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, &kernel.Refusal{Command: "nice", What: "invalid adjustment " + kernel.Quote(v), Allowed: []string{"an integer from -39 to 39"}}
	}
	return n, nil
}

func runNice(ctx context.Context, c *kernel.Call, a *launchArgs) error {
	adjust, err := niceAdjustment(a)
	if err != nil {
		return err
	}
	base := ownNiceness()
	own := base + c.Launched().Nice
	if len(a.command) == 0 {
		_, err := fmt.Fprintln(c.Stdout, own)
		return err
	}
	target := min(max(own+adjust, -20), 19)
	if target < base && syscall.Geteuid() != 0 {
		// As nice(1): say so, and run the command anyway.
		fmt.Fprintln(c.Stderr, "nice: cannot set niceness: Permission denied")
		target = max(own, base)
	}
	code, err := c.Launch(ctx, a.argv(), kernel.LaunchOptions{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Launch: kernel.Launch{Nice: target - own}})
	return launched(ctx, code, err)
}
