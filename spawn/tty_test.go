package spawn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/shelter-sh/shelter/spawn"
)

// At the spawn level: a child on the pseudo-terminal
// sees a terminal; without the option it does not.
func TestRunTTY(t *testing.T) {
	for _, tty := range []*pty.Winsize{nil, {Rows: 24, Cols: 80}} {
		var out lockedBuffer
		c := shCmd(t, "test -t 1 && echo tty; test -t 0 && echo in")
		c.TTY, c.Stdout = tty, &out
		if _, err := spawn.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		want := ""
		if tty != nil {
			want = "tty\r\nin\r\n"
		}
		if out.String() != want {
			t.Errorf("TTY %v: printed %q, want %q", tty, out.String(), want)
		}
	}
}

func TestRunTTYSizeAndInput(t *testing.T) {
	var out lockedBuffer
	c := shCmd(t, "stty size; read line; echo \"got $line\"")
	c.TTY = &pty.Winsize{Rows: 33, Cols: 101}
	c.Stdin, c.Stdout = strings.NewReader("hello\n"), &out
	status, err := spawn.Run(context.Background(), c)
	if status != 0 || err != nil {
		t.Fatalf("Run = %d, %v", status, err)
	}
	got := strings.ReplaceAll(out.String(), "\r\n", "\n")
	// The terminal echoes what is typed.
	if !strings.Contains(got, "33 101\n") || !strings.Contains(got, "got hello\n") {
		t.Errorf("printed %q", got)
	}
}

// A child reading its terminal to the end gets end-of-file after the
// input, even without a final newline.
func TestRunTTYEndOfInput(t *testing.T) {
	var out lockedBuffer
	c := shCmd(t, "cat >/dev/null; echo done")
	c.TTY = &pty.Winsize{Rows: 24, Cols: 80}
	c.Stdin, c.Stdout = strings.NewReader("partial"), &out
	status, err := spawn.Run(context.Background(), c)
	if status != 0 || err != nil || !strings.Contains(out.String(), "done") {
		t.Fatalf("Run = %d, %v; printed %q", status, err, out.String())
	}
}
