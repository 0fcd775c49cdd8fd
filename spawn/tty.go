package spawn

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/creack/pty"
)

// ttyMaster is the master side of a child's pseudo-terminal and the copy
// of what the child prints from it.
type ttyMaster struct {
	*outputCopy
}

// startTTY starts cmd as the leader of a new session whose controlling
// terminal is a new pseudo-terminal: the child's process group is its own
// pid, as without a terminal.
func startTTY(cmd *exec.Cmd, c *Cmd, cs *confinedStart) (*ttyMaster, error) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	cmd.SysProcAttr = sysProcAttr(false)
	var file *os.File
	err := children.start(cmd, func() error {
		return cs.start(cmd, func() error {
			return startUnder(threadOf(c), func() (err error) {
				file, err = pty.StartWithSize(cmd, c.TTY)
				return err
			})
		})
	})
	if err != nil {
		if file != nil {
			file.Close() // the helper failed after the terminal was made
		}
		return nil, err
	}
	if c.Stdin != nil {
		go feedTTY(file, c.Stdin)
	}
	out := c.Stdout
	if out == nil {
		out = io.Discard
	}
	// The master reads EIO once the last holder of the terminal exits.
	t := &ttyMaster{newOutputCopy(file, out)}
	go t.run()
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

// wait lets the output drain after the child was reaped; a process that
// escaped with the terminal open gets at most delay, then what the
// terminal holds is read and the master closed under it. It reports
// whether output was lost.
func (t *ttyMaster) wait(delay time.Duration) (lost bool) {
	return t.finish(time.Now().Add(delay))
}
