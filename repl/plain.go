package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// plainTerminal reports whether the terminal is to get plain lines, with
// no line editor: TERM=dumb says it understands no escape sequence
// (an Emacs shell buffer, a program that only reads what is printed).
func plainTerminal() bool { return os.Getenv("TERM") == "dumb" }

// plainLoop is Run's loop on a dumb terminal: it prints the prompt as
// text and reads each line as the terminal's own line discipline hands
// it over (its echo and its erase keys), never more than a line, so
// what an entry's programs read is theirs. An entry the parser finds
// incomplete goes on on a "> " line. It returns when input ends (Ctrl-D
// on an empty line) or an entry ends the shell.
func (p *prompt) plainLoop(hist *History) error {
	in := &lineReader{f: os.Stdin}
	var entry strings.Builder
	for {
		primary := p.primary()
		shown := primary
		if entry.Len() > 0 {
			shown = continuationPrompt
		}
		p.mu.Lock()
		p.plain = plainState{waiting: true, primary: primary}
		p.mu.Unlock()
		io.WriteString(os.Stdout, shown)
		line, err := in.readLine()
		p.mu.Lock()
		interrupted := p.plain.interrupted
		p.plain.waiting = false
		p.mu.Unlock()
		if interrupted {
			// Ctrl-C at the prompt dropped what was typed before it;
			// the terminal threw away the line, we the earlier ones.
			entry.Reset()
		}
		if errors.Is(err, io.EOF) && line == "" {
			if entry.Len() == 0 {
				fmt.Fprintln(os.Stderr, "exit")
				return nil
			}
			// Input ended inside an entry: run it, for its error.
			line = entry.String()
			entry.Reset()
			if p.runPlain(line, hist) {
				return nil
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if entry.Len() > 0 {
			entry.WriteByte('\n')
		}
		entry.WriteString(line)
		if incomplete(entry.String()) {
			continue
		}
		src := entry.String()
		entry.Reset()
		if strings.TrimSpace(src) == "" {
			continue
		}
		if p.runPlain(src, hist) {
			return nil
		}
	}
}

// runPlain records src in the history, unless it is the entry before
// it again, as the line editor does, and runs it; it reports whether
// the entry ended the shell.
func (p *prompt) runPlain(src string, hist *History) bool {
	if last, err := hist.GetLine(hist.Len() - 1); err != nil || last != src {
		hist.Write(src)
	}
	return p.run(src)
}

// interruptPlainPrompt is Ctrl-C at a plain prompt: the terminal has
// thrown the line away and echoed ^C; a fresh prompt is shown on the
// next line, and the entry's earlier lines are dropped when the read
// returns. It reports whether a plain prompt was waiting.
func (p *prompt) interruptPlainPrompt() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.plain.waiting {
		return false
	}
	// The next line starts a new entry, at the primary prompt.
	p.plain.interrupted = true
	io.WriteString(os.Stdout, "\n"+p.plain.primary)
	return true
}

// plainState is what Ctrl-C at a plain prompt needs to know.
type plainState struct {
	waiting     bool   // a line is being read at the prompt
	primary     string // the entry's primary prompt
	interrupted bool   // Ctrl-C came while the line was read
}

// lineReader reads lines from a terminal without reading past them: in
// the terminal's canonical mode each read returns at most one line.
// What a read returns past a newline (a terminal left in raw mode) is
// kept for the next line.
type lineReader struct {
	f    *os.File
	rest []byte
}

// readLine returns the next line without its newline. At the end of
// input it returns what it read of an unfinished line and io.EOF.
func (r *lineReader) readLine() (string, error) {
	var line []byte
	buf := make([]byte, 4096)
	for {
		if i := bytes.IndexByte(r.rest, '\n'); i >= 0 {
			line = append(line, r.rest[:i]...)
			r.rest = r.rest[i+1:]
			return string(line), nil
		}
		line, r.rest = append(line, r.rest...), nil
		n, err := r.f.Read(buf)
		r.rest = append(r.rest, buf[:n]...)
		if err != nil {
			line = append(line, r.rest...)
			r.rest = nil
			return string(line), err
		}
	}
}
