package kernel

import (
	"io"
	"os"
	"time"

	"github.com/creack/pty"
)

// callTTY is a pseudo-terminal a call's output is written to, for a call
// run with a terminal: the shell and every command it starts see a
// terminal on stdout and stderr (`test -t 1` holds, programs colour and
// size their output), and what they print is copied to the call's stream.
type callTTY struct {
	// File is the terminal side: give it to the shell as stdout and stderr.
	File   *os.File
	master *os.File
	copied chan struct{}
}

// openCallTTY opens a terminal of the given size whose output goes to out.
func openCallTTY(size *pty.Winsize, out io.Writer) (*callTTY, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	if size != nil {
		if err := pty.Setsize(master, size); err != nil {
			master.Close()
			tty.Close()
			return nil, err
		}
	}
	t := &callTTY{File: tty, master: master, copied: make(chan struct{})}
	go func() {
		// The master reads EIO once the last holder of the terminal closes it.
		io.Copy(out, master)
		close(t.copied)
	}()
	return t, nil
}

// Close closes the terminal side and waits for what was printed to be
// copied; a process that still holds the terminal (a background job) gets
// at most wait before the master is closed under it.
func (t *callTTY) Close(wait time.Duration) {
	t.File.Close()
	select {
	case <-t.copied:
	case <-time.After(wait):
	}
	t.master.Close()
}
