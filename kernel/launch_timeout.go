package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var timeoutBuiltin = &builtin{
	name:  "timeout",
	usage: timeoutUsage,
	about: "Run a command through the session's own rules and end it after DURATION (a number with an optional suffix s, m, h or d; 0 means no limit): SIGNAL (TERM) to its process group, SIGKILL after -k DURATION or the session's grace. Exits 124 when the time ran out.",
	run:   runTimeout,
}

var nohupBuiltin = &builtin{
	name:  "nohup",
	usage: nohupUsage,
	about: "Run a command through the session's own rules so that `kill -HUP` passes over its processes; the session still ends it on Close.",
	run:   runNohup,
}

var niceBuiltin = &builtin{
	name:  "nice",
	usage: "nice [-n ADJUSTMENT] [COMMAND [ARG]...]",
	about: "Run a command through the session's own rules with its niceness raised by ADJUSTMENT (10); without a command, print the niceness.",
	run:   runNice,
}

const (
	timeoutUsage = "timeout [-s SIGNAL] [-k DURATION] [--preserve-status] DURATION COMMAND [ARG]..."
	nohupUsage   = "nohup COMMAND [ARG]..."
)

var timeoutFlags = []string{"--preserve-status", "-k DURATION", "-s SIGNAL"}

func runTimeout(ctx context.Context, c *Call) error {
	args := c.Args[1:]
	var sig syscall.Signal
	var grace time.Duration
	preserve := false
	for len(args) > 0 && isFlag(args[0]) {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		switch {
		case a == "--preserve-status":
			preserve = true
			args = args[1:]
		case strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "--signal"):
			v, used, ok := flagValue(args, 0, "-s", "--signal")
			if !ok || v == "" {
				return missingValue("timeout", a, "a signal")
			}
			s, ok := parseSignal(v)
			if !ok || s == 0 {
				return &Refusal{Line: fmt.Sprintf("timeout: unknown signal '%s'; allowed: a name such as TERM, INT, HUP, KILL, or a number", v)}
			}
			sig, args = s, args[used:]
		case strings.HasPrefix(a, "-k") || strings.HasPrefix(a, "--kill-after"):
			v, used, ok := flagValue(args, 0, "-k", "--kill-after")
			if !ok || v == "" {
				return missingValue("timeout", a, "a duration")
			}
			d, err := parseDuration("timeout", v)
			if err != nil {
				return err
			}
			if d == 0 {
				d = -1 // kill at once
			}
			grace, args = d, args[used:]
		default:
			return unknownFlag("timeout", a, timeoutFlags...)
		}
	}
	if len(args) < 2 {
		return &Refusal{Line: "timeout: missing duration or command; usage: " + timeoutUsage}
	}
	limit, err := parseDuration("timeout", args[0])
	if err != nil {
		return err
	}
	runCtx := ctx
	var deadline time.Time
	if limit > 0 {
		deadline = time.Now().Add(limit)
		if sig == 0 {
			sig = syscall.SIGTERM
		}
		if grace == 0 && sig != syscall.SIGKILL {
			// Without -k, timeout(1) sends its signal only; shelter adds
			// the session's SIGKILL after its grace so that nothing
			// outlives its deadline for long.
			grace = c.session.grace()
		}
		runCtx = withLaunch(ctx, func(l *launch) { l.withDeadline(deadline, sig, grace) })
	}
	status, err := c.launchCall(runCtx, args[1:], c.Env, c.Stdin, c.Stdout, c.Stderr)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) || !deadline.IsZero() && !time.Now().Before(deadline) {
		switch {
		case preserve:
		case status == 128+int(syscall.SIGKILL) && sig != syscall.SIGKILL:
			// It needed SIGKILL, as timeout(1) reports.
		default:
			status = 124
		}
	}
	return launched(ctx, status)
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
		return 0, &Refusal{Line: fmt.Sprintf("%s: invalid duration '%s'; allowed: a number with an optional suffix s, m, h or d (5, 0.5, 1.5m, 2h, 1d)", cmd, v)}
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

func runNohup(ctx context.Context, c *Call) error {
	args := c.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	} else if len(args) > 0 && isFlag(args[0]) {
		return unknownFlag("nohup", args[0])
	}
	if len(args) == 0 {
		return &Refusal{Line: "nohup: missing command; usage: " + nohupUsage}
	}
	runCtx := withLaunch(ctx, func(l *launch) { l.nohup = true })
	status, err := c.launchCall(runCtx, args, c.Env, c.Stdin, c.Stdout, c.Stderr)
	if err != nil {
		return err
	}
	return launched(ctx, status)
}

func runNice(ctx context.Context, c *Call) error {
	args := c.Args[1:]
	adjust := 10
	for len(args) > 0 && isFlag(args[0]) {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		v, used, ok := flagValue(args, 0, "-n", "--adjustment")
		if used == 0 {
			// The old spelling: -5, --5.
			v, used, ok = strings.TrimPrefix(a[1:], "-"), 1, true
		}
		if !ok {
			return missingValue("nice", a, "an adjustment")
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			if used == 1 && !strings.HasPrefix(a, "-n") && !strings.HasPrefix(a, "--adjustment") {
				return unknownFlag("nice", a, "-n ADJUSTMENT")
			}
			return &Refusal{Line: fmt.Sprintf("nice: invalid adjustment '%s'; allowed: an integer from -39 to 39", v)}
		}
		adjust, args = n, args[used:]
	}
	own := ownNiceness() + launchOf(ctx).nice
	if len(args) == 0 {
		_, err := fmt.Fprintln(c.Stdout, own)
		return err
	}
	target := min(max(own+adjust, -20), 19)
	if target < ownNiceness() && syscall.Geteuid() != 0 {
		// As nice(1): say so, and run the command anyway.
		fmt.Fprintln(c.Stderr, "nice: cannot set niceness: Permission denied")
		target = max(own, ownNiceness())
	}
	runCtx := withLaunch(ctx, func(l *launch) { l.nice = target - ownNiceness() })
	status, err := c.launchCall(runCtx, args, c.Env, c.Stdin, c.Stdout, c.Stderr)
	if err != nil {
		return err
	}
	return launched(ctx, status)
}
