package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/reeflective/readline"
	"github.com/reeflective/readline/inputrc"
	"golang.org/x/term"

	"github.com/shelter-sh/shelter/kernel"
)

// Options configure [Run].
type Options struct {
	// RC is a file sourced in the session before the first prompt, when
	// it exists; empty means none.
	RC string
	// History holds past entries and receives new ones; nil keeps this
	// run's entries in memory only.
	History *History
}

// ErrNoTerminal is returned by [Run] when the process's stdin is not a
// terminal.
var ErrNoTerminal = errors.New("repl: stdin is not a terminal")

// noSuspend is the line Ctrl-Z prints.
const noSuspend = "shelter: Ctrl-Z: job control is not supported; end a program with Ctrl-C"

// Run runs the prompt on the process's own terminal (stdin, stdout and
// stderr, which the line editor uses) until Ctrl-D on an empty line, or
// an entry that ends the shell (exit, or a failure under set -e). Each
// entry is one call of s, run on the terminal
// ([kernel.RunOptions.Terminal]) with its output streamed to it; an EXIT
// trap set at the prompt runs when the prompt ends. Run returns the
// status to exit with: the last entry's, or the one exit or the EXIT
// trap gave.
//
// While an entry runs, Run catches SIGINT (Ctrl-C, which ends the entry
// with status 130), SIGTSTP (Ctrl-Z, refused with a line) and SIGQUIT
// (ignored): programs the entry starts still get them as they would.
// The error is [ErrNoTerminal], or what reading the terminal failed
// with.
//
// The line editor asks the terminal where the cursor is as it draws,
// and waits for the answer without a deadline. Run asks once before the
// first prompt and waits at most a second: on a terminal that has not
// answered by then, the editor draws without asking. Keys read while
// Run waits go to the editor. When TERM is dumb there is no editor:
// the prompt is plain text, and lines are read as the terminal's line
// discipline hands them over, never more than one at a time; no escape
// sequence is printed.
func Run(s *kernel.Session, opts Options) (int, error) {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return 2, ErrNoTerminal
	}
	p := &prompt{s: s}
	stop := p.catchSignals()
	defer stop()

	if opts.RC != "" {
		if _, err := os.Stat(opts.RC); err == nil {
			p.run(". " + quote(opts.RC))
		}
	}
	hist := opts.History
	if hist == nil {
		hist, _ = OpenHistory("")
	}
	if plainTerminal() {
		err := p.plainLoop(hist)
		return p.end(), err
	}
	rl := p.editor(hist)
	// The editor asks the terminal where the cursor is each time it
	// draws, and waits for the answer without a deadline: on a terminal
	// that does not answer it draws from the prompt's width instead.
	answered, keys, _ := answersCursorQuery(os.Stdin, os.Stdout, cursorQueryTimeout)
	if !answered {
		rl.Config.Set("cursor-position-probe", false)
	}
	if len(keys) > 0 {
		rl.Keys.Feed(false, []rune(string(keys))...)
	}

	var err error
	for {
		var entry string
		entry, err = rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			err = nil
			continue
		}
		if errors.Is(err, io.EOF) {
			err = nil
			fmt.Fprintln(os.Stderr, "exit")
			break
		}
		if err != nil {
			break
		}
		if strings.TrimSpace(entry) == "" {
			continue
		}
		if p.run(entry) {
			break
		}
	}
	return p.end(), err
}

// prompt is one run of the REPL.
type prompt struct {
	s      *kernel.Session
	status int // the last entry's

	mu         sync.Mutex
	cancel     context.CancelFunc // ends the running entry; nil between entries
	shownWidth int                // the columns of the last prompt shown
	plain      plainState         // on a dumb terminal
}

// editor sets up the line editor.
func (p *prompt) editor(hist *History) *readline.Shell {
	rl := readline.NewShell()
	// The line being typed of an entry of several lines shows the
	// continuation prompt; earlier ones a column.
	rl.Config.Set("multiline-column", true)
	rl.Prompt.Primary(p.primary)
	rl.Prompt.Secondary(func() string { return continuationPrompt })
	rl.AcceptMultiline = func(line []rune) bool { return !incomplete(string(line)) }
	rl.History.Add("history", hist)
	rl.Completer = func(line []rune, cursor int) readline.Completions {
		word, cands := Complete(p.s, string(line), cursor)
		pairs := make([]string, 0, 2*len(cands))
		for _, c := range cands {
			pairs = append(pairs, c.Word, c.Description)
		}
		// The word as the shell splits it, quotes and all, is what a
		// candidate replaces (the editor's own is the text since the
		// last blank).
		comps := readline.CompleteValuesDescribed(pairs...)
		comps.PREFIX = word
		return comps
	}
	rl.Keymap.Register(map[string]func(){
		"shelter-no-suspend": func() { rl.Printf("%s", noSuspend) },
	})
	for _, keymap := range []string{"emacs", "emacs-standard", "vi-insert", "vi-command"} {
		rl.Config.Bind(keymap, inputrc.Unescape(`\C-z`), "shelter-no-suspend", false)
	}
	return rl
}

func (p *prompt) primary() string {
	vars := p.s.Vars()
	shown := Prompt(p.s.Dir(), vars["HOME"], vars["PS1"], p.status)
	p.mu.Lock()
	p.shownWidth = visibleWidth(shown)
	p.mu.Unlock()
	return shown
}

// run runs one entry on the terminal and shows why it was refused, if
// it was. It reports whether the entry ended the shell.
func (p *prompt) run(entry string) (exited bool) {
	fd := int(os.Stdin.Fd())
	mode, _ := term.GetState(fd)
	ctx, cancel := context.WithCancel(context.Background())
	p.mu.Lock()
	p.cancel = cancel
	p.mu.Unlock()
	res, err := p.s.Run(ctx, entry, kernel.RunOptions{
		Stdin:       os.Stdin,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		Terminal:    os.Stdin,
		Interactive: true,
	})
	p.mu.Lock()
	p.cancel = nil
	p.mu.Unlock()
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "shelter: %v\n", err)
		p.status = 1
		return true
	}
	p.status = res.ExitCode
	if mode != nil {
		// A program may have left the terminal in its own mode (a
		// full-screen one that was killed, or stty): the prompt gets
		// the terminal back as it was.
		term.Restore(fd, mode)
	}
	if res.Cancelled {
		// After the ^C the terminal echoed.
		fmt.Fprintln(os.Stderr)
	}
	if res.Rejected || res.Cancelled || res.TimedOut {
		// The interpreter's $? is not the status the entry ended with.
		p.s.Run(context.Background(), fmt.Sprintf("(exit %d)", res.ExitCode), kernel.RunOptions{Interactive: true})
	}
	p.showIssues(entry, res.Issues)
	return !res.Cancelled && !res.TimedOut && p.s.Exited()
}

// showIssues prints a refused entry's errors and the notes of the known
// gaps an entry used. For an entry of one line, a caret under the
// prompt's echo of it marks each error's column.
func (p *prompt) showIssues(entry string, issues []kernel.Issue) {
	// The prompt the entry was typed at, not the one its status makes.
	p.mu.Lock()
	width := p.shownWidth
	p.mu.Unlock()
	for _, is := range issues {
		if is.Severity == kernel.SeverityNote {
			fmt.Fprintln(os.Stderr, kernel.IssueLine(is))
			continue
		}
		if is.Severity != kernel.SeverityError {
			continue
		}
		switch {
		case is.Line == 1 && is.Col > 0 && !strings.Contains(entry, "\n"):
			col := utf8.RuneCountInString(entry[:min(is.Col-1, len(entry))])
			fmt.Fprintf(os.Stderr, "%s^ %s\n", strings.Repeat(" ", width+col), is.Message)
		default:
			fmt.Fprintln(os.Stderr, kernel.IssueLine(is))
		}
	}
}

// end runs the call that ends the prompt, in which an EXIT trap set at
// the prompt runs, and returns the status to exit with.
func (p *prompt) end() int {
	res, err := p.s.Run(context.Background(), fmt.Sprintf("exit %d", p.status), kernel.RunOptions{
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Terminal: os.Stdin,
	})
	if err != nil {
		return p.status
	}
	return res.ExitCode
}

// catchSignals catches what the terminal's keys send shelter while an
// entry runs (see [Run]); the returned func stops catching.
func (p *prompt) catchSignals() (stop func()) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTSTP, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				switch sig {
				case syscall.SIGINT:
					p.mu.Lock()
					cancel := p.cancel
					p.mu.Unlock()
					if cancel != nil {
						cancel()
					} else {
						p.interruptPlainPrompt()
					}
				case syscall.SIGTSTP:
					fmt.Fprintf(os.Stderr, "\r\n%s\n", noSuspend)
				}
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// visibleWidth is how many columns s takes, its escape sequences aside.
func visibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i++; i < len(s) && !(s[i] >= '@' && s[i] <= '~' && s[i] != '['); i++ {
			}
			continue
		}
		if s[i]&0xc0 != 0x80 {
			n++
		}
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return visibleWidth(s[i+1:])
	}
	return n
}

// quote quotes a word for the shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
