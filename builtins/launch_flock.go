package builtins

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

var launchFlock = &launcher{
	name:  "flock",
	usage: "[-s|-x] [-n|-w SECONDS] [-E CODE] FILE COMMAND [ARG]...",
	about: "Lock FILE (created when missing), run a command through the session's own rules, and release the lock when it ends; a lock not taken (-n, -w SECONDS) is status 1 or -E's CODE.",
	opts: []option{
		{short: 's', long: "shared", about: "a shared lock"},
		{short: 'x', long: "exclusive", about: "an exclusive lock (the default)"},
		{short: 'e', key: "exclusive", about: "as -x"},
		{short: 'n', long: "nonblock", about: "fail at once when the lock is held"},
		{long: "nb", key: "nonblock", about: "as -n"},
		{short: 'w', long: "timeout", arg: "SECONDS", about: "fail when the lock is not taken after SECONDS (a fraction allowed)"},
		{long: "wait", key: "timeout", arg: "SECONDS", about: "as -w"},
		{short: 'E', long: "conflict-exit-code", arg: "CODE", about: "the status when the lock is not taken (1)"},
		{short: 'o', long: "close", about: "accepted: the command never holds the lock's descriptor"},
		{short: 'F', long: "no-fork", about: "accepted: shelter runs the command itself"},
	},
	operands: []string{"FILE"},
	command:  true,
	check: func(a *launchArgs) error {
		_, err := readFlock(a)
		return err
	},
	run: runFlock,
}

type flockCall struct {
	how      int           // syscall.LOCK_SH or LOCK_EX
	nonblock bool          // -n
	wait     time.Duration // -w; 0: for as long as it takes
	conflict int           // the status when the lock is not taken
}

func readFlock(a *launchArgs) (flockCall, error) {
	f := flockCall{how: syscall.LOCK_EX, nonblock: a.has("nonblock"), conflict: 1}
	if a.last("shared", "exclusive") == "shared" {
		f.how = syscall.LOCK_SH
	}
	if v, ok := lastValue(a, "timeout"); ok {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || secs < 0 || secs > 1e9 {
			return f, &kernel.Refusal{Command: "flock", What: "invalid timeout " + kernel.Quote(v), Allowed: []string{"a number of seconds (a fraction allowed)"}}
		}
		if secs == 0 {
			f.nonblock = true
		}
		f.wait = time.Duration(secs * float64(time.Second))
	}
	if v, ok := lastValue(a, "conflict-exit-code"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 255 {
			return f, &kernel.Refusal{Command: "flock", What: "invalid exit code " + kernel.Quote(v), Allowed: []string{"an integer from 0 to 255"}}
		}
		f.conflict = n
	}
	return f, nil
}

func runFlock(ctx context.Context, c *kernel.Call, a *launchArgs) error {
	f, err := readFlock(a)
	if err != nil {
		return err
	}
	name := a.operands[0]
	lock, err := openLockFile(ctx, c, name)
	if err != nil {
		failf(c, "cannot open lock file %s", errText(err))
		return kernel.ExitStatus(1)
	}
	defer lock.Close()
	taken, err := takeLock(ctx, lock, f)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		failf(c, "%s: %s", name, reason(err))
		return kernel.ExitStatus(1)
	case !taken:
		return status(f.conflict)
	}
	code, err := c.Launch(ctx, a.argv(), kernel.LaunchOptions{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr})
	return launched(ctx, code, err)
}

// openLockFile opens (creating) the file to lock through the call's
// opener, as flock(1) does: read-only, and a directory too.
func openLockFile(ctx context.Context, c *kernel.Call, name string) (*os.File, error) {
	rw, err := c.Opener().OpenFile(ctx, name, os.O_RDONLY|os.O_CREATE|syscall.O_NOCTTY, 0o666)
	if errors.Is(err, syscall.EISDIR) {
		rw, err = c.Opener().OpenFile(ctx, name, os.O_RDONLY|syscall.O_NOCTTY, 0)
	}
	if err != nil {
		return nil, err
	}
	f, ok := rw.(*os.File)
	if !ok {
		rw.Close()
		return nil, &fs.PathError{Op: "flock", Path: name, Err: errors.New("not a file that can be locked")}
	}
	return f, nil
}

// lockPoll bounds the wait between two tries of a held lock: flock(2)
// cannot be interrupted when the call ends, so the lock is tried without
// blocking, more slowly as the wait goes on.
const lockPoll = 50 * time.Millisecond

// takeLock takes the lock: at once, or waiting until ctx ends or f.wait
// passes. taken is false when the lock is held and the wait gave up.
func takeLock(ctx context.Context, file *os.File, f flockCall) (taken bool, err error) {
	var giveUp <-chan time.Time
	if f.wait > 0 {
		t := time.NewTimer(f.wait)
		defer t.Stop()
		giveUp = t.C
	}
	pause := time.Millisecond
	for {
		err := syscall.Flock(int(file.Fd()), f.how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case err == syscall.EINTR:
			continue
		case err != syscall.EWOULDBLOCK:
			return false, err
		case f.nonblock:
			return false, nil
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, ctx.Err()
		case <-giveUp:
			t.Stop()
			return false, nil
		case <-t.C:
		}
		pause = min(2*pause, lockPoll)
	}
}
