package repl

import (
	"errors"
	"os"
	"regexp"
	"sync"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// cursorQuery asks a terminal where its cursor is; it answers with
// ESC[ROW;COLR as if typed.
const cursorQuery = "\x1b[6n"

// cursorAnswer is a terminal's answer to cursorQuery, compiled on first
// use: a CLI that never prompts does not pay for it at start.
var cursorAnswer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9]+;[0-9]+R`) })

// cursorQueryTimeout bounds the wait for the answer to the one cursor
// query Run asks before the line editor starts. A terminal emulator
// answers at once, a remote one within a round trip; a pseudo-terminal
// nobody watches (script(1) fed by a pipe, a test harness) never does.
const cursorQueryTimeout = time.Second

// answersCursorQuery asks the terminal on in and out where the cursor
// is, as the line editor does each time it draws, and reports whether
// the answer came within timeout. The editor waits for that answer
// without a deadline, so Run turns its query off on a terminal that
// does not answer. Keys read meanwhile (typed ahead, or a script fed to
// the terminal) are returned, in order, without the answer.
//
// The terminal is in raw mode during the wait, as it is while the
// editor waits, so that neither the answer nor typed keys are echoed;
// its mode is restored before answersCursorQuery returns.
func answersCursorQuery(in, out *os.File, timeout time.Duration) (answered bool, keys []byte, err error) {
	fd := int(in.Fd())
	mode, err := term.MakeRaw(fd)
	if err != nil {
		return false, nil, err
	}
	defer term.Restore(fd, mode)
	if _, err := out.WriteString(cursorQuery); err != nil {
		return false, nil, err
	}
	deadline := time.Now().Add(timeout)
	buf := make([]byte, 1024)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false, keys, nil
		}
		// select, not poll: macOS's poll does not wait on terminals.
		var readable unix.FdSet
		readable.Set(fd)
		tv := unix.NsecToTimeval(left.Nanoseconds())
		n, err := unix.Select(fd+1, &readable, nil, nil, &tv)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, keys, err
		}
		if n == 0 {
			continue // the deadline; the loop's check ends it
		}
		n, err = unix.Read(fd, buf)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil || n == 0 {
			return false, keys, err // the terminal hung up
		}
		keys = append(keys, buf[:n]...)
		if loc := cursorAnswer().FindIndex(keys); loc != nil {
			return true, append(keys[:loc[0]:loc[0]], keys[loc[1]:]...), nil
		}
	}
}
