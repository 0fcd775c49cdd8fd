package kernel_test

import (
	"context"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestRunOnATerminal(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	const script = "test -t 1 && echo tty; sh -c 'test -t 1 && echo child; stty size <&1'"
	res, err := s.Run(context.Background(), script, kernel.RunOptions{TTY: &kernel.TermSize{Rows: 30, Cols: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "tty\r\nchild\r\n30 100\r\n"; res.Stdout != want || res.ExitCode != 0 {
		t.Errorf("with a terminal: exit %d stdout %q, want %q (stderr %q)", res.ExitCode, res.Stdout, want, res.Stderr)
	}
	res = run(t, s, "test -t 1 && echo tty; sh -c 'test -t 1 && echo child'; true")
	if res.Stdout != "" {
		t.Errorf("without a terminal: stdout %q, want nothing", res.Stdout)
	}
}
