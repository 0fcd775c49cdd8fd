package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/repl"
)

const replUsage = `usage:
  shelter repl [flags]
  shelter [flags]                 the same, when stdin is a terminal

The interactive prompt (docs/repl.md) on the terminal: line editing, Tab
completion, history in $XDG_STATE_HOME/shelter/history (default
~/.local/state/shelter/history), Ctrl-R to search it. ~/.config/shelter/rc.sh
($XDG_CONFIG_HOME/shelter/rc.sh) is sourced first unless --norc. Ctrl-D on
an empty line or exit ends it, with the last status. With TERM=dumb it
reads plain lines: no line editing, no escape sequences.
`

// runREPL is `shelter repl [flags]`.
func runREPL(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	var o options
	rest, status := o.parse("repl", args, stdout, stderr)
	if status >= 0 {
		return status
	}
	if len(rest) > 0 {
		return refuse(stderr, "shelter repl", "unexpected argument "+refusal.Quote(rest[0]))
	}
	return startREPL(&o, stdin, stderr)
}

// startREPL runs the prompt with the session the flags describe.
func startREPL(o *options, stdin *os.File, stderr io.Writer) int {
	if stdin == nil || !term.IsTerminal(int(stdin.Fd())) {
		fmt.Fprintln(stderr, "shelter repl: stdin is not a terminal; run a script with -c SCRIPT, a FILE, or on stdin")
		return 2
	}
	s, status := o.session(stderr)
	if status != 0 {
		return status
	}
	defer s.Close()
	// A history that cannot be read is still appended to.
	hist, err := repl.OpenHistory(repl.DefaultHistoryPath())
	if err != nil {
		fmt.Fprintf(stderr, "shelter: history: %v\n", unwrapPath(err))
	}
	opts := repl.Options{History: hist}
	if dir, err := os.UserConfigDir(); err == nil && !o.norc {
		opts.RC = filepath.Join(dir, "shelter", "rc.sh")
	}
	status, err = repl.Run(s, opts)
	if err != nil {
		fmt.Fprintf(stderr, "shelter: %v\n", err)
	}
	return status
}

// holdsForeground reports whether a script run with the terminal t on
// stdin may move the terminal's foreground between process groups:
// shelter's own group holds it, and stdout is a terminal too. Inside a
// pipeline of the shell that started it (`shelter -c ... | less`)
// shelter shares its group with the other stages; handing the terminal
// to a child of shelter would stop a stage that reads the keyboard
// (SIGTTIN), and the calling shell would report the job stopped.
func holdsForeground(t *os.File, stdout io.Writer) bool {
	out, ok := stdout.(*os.File)
	if !ok || !isTerminal(out) {
		return false
	}
	pgrp, err := unix.IoctlGetInt(int(t.Fd()), unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}
