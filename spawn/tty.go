package spawn

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// ttyMaster is the master side of a child's pseudo-terminal and the
// goroutine copying what the child prints from it.
type ttyMaster struct {
	file   *os.File
	copied chan struct{}
}

// startTTY starts cmd as the leader of a new session whose controlling
// terminal is a new pseudo-terminal: the child's process group is its own
// pid, as without a terminal.
func startTTY(cmd *exec.Cmd, c *Cmd) (*ttyMaster, error) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	file, err := pty.StartWithSize(cmd, c.TTY)
	if err != nil {
		return nil, err
	}
	if c.Stdin != nil {
		go feedTTY(file, c.Stdin)
	}
	out := c.Stdout
	if out == nil {
		out = io.Discard
	}
	t := &ttyMaster{file: file, copied: make(chan struct{})}
	go func() {
		// The master reads EIO once the last holder of the terminal exits.
		io.Copy(out, file)
		close(t.copied)
	}()
	return t, nil
}

// feedTTY types what in holds into the terminal, then an end-of-file: ^D
// at the start of a line, or twice after a partial one. Its writes fail,
// ending it, once the master is closed.
func feedTTY(master *os.File, in io.Reader) {
	var last [1]byte
	buf := make([]byte, 32<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			last[0] = buf[n-1]
			if _, werr := master.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	eof := []byte{4}
	if last[0] != 0 && last[0] != '\n' {
		eof = bytes.Repeat(eof, 2)
	}
	master.Write(eof)
}

// finish waits for the output to drain after the child was reaped; a
// process that escaped with the terminal open gets at most wait before the
// master is closed under it.
func (t *ttyMaster) finish(wait time.Duration) {
	select {
	case <-t.copied:
	case <-time.After(wait):
	}
	t.file.Close()
	select {
	case <-t.copied:
	case <-time.After(100 * time.Millisecond):
	}
}
