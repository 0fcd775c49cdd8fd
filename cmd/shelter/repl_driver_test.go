package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"
)

// waitFor bounds every wait of the terminal tests: generous, as the
// tests only ever wait for something that is expected to come.
const waitFor = 15 * time.Second

// terminal drives a shelter process on a pseudo-terminal of its own, as
// a person at a terminal emulator would: it types keys and reads the
// screen's text. Like a terminal emulator it answers the line editor's
// cursor position query (ESC[6n).
type terminal struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File

	mu  sync.Mutex
	raw []byte // everything shelter printed
	// typedAt is how much shelter had printed when keys were last typed
	// to its line editor.
	typedAt int
	seen    int // how much of the screen expect has consumed
	read    chan struct{}
	done    chan struct{} // closed when the reader stops

	cursor cursor // where the cursor is, for the answer to cursorQuery
	editor bool   // shelter runs its prompt, not a script
	mute   bool   // the terminal answers no cursorQuery
}

// termRows and termCols are the terminal's size.
const termRows, termCols = 40, 160

// cursor follows the cursor as a terminal moves it, well enough to
// answer the line editor: printed characters, carriage returns, line
// feeds and the CSI moves it uses.
type cursor struct {
	row, col int // from 1
}

var csiMove = regexp.MustCompile(`^\x1b\[([0-9]*)(?:;([0-9]*))?([A-DGHJKf])`)

func (c *cursor) move(out []byte) {
	if c.row == 0 {
		c.row, c.col = 1, 1
	}
	for i := 0; i < len(out); i++ {
		switch b := out[i]; {
		case b == '\r':
			c.col = 1
		case b == '\n':
			c.row++
		case b == '\b':
			c.col--
		case b == 0x1b:
			loc := escapeSeq.FindIndex(out[i:])
			if loc == nil || loc[0] != 0 {
				continue
			}
			if m := csiMove.FindSubmatch(out[i:]); m != nil {
				n, _ := strconv.Atoi(string(m[1]))
				arg := max(n, 1)
				switch m[3][0] {
				case 'A':
					c.row -= arg
				case 'B':
					c.row += arg
				case 'C':
					c.col += arg
				case 'D':
					c.col -= arg
				case 'G':
					c.col = arg
				case 'H', 'f':
					col, _ := strconv.Atoi(string(m[2]))
					c.row, c.col = arg, max(col, 1)
				}
			}
			i += loc[1] - 1
		case b >= 0x20 && b&0xc0 != 0x80:
			c.col++
		}
		c.row = min(max(c.row, 1), termRows)
		c.col = min(max(c.col, 1), termCols)
	}
}

// cursorQuery is what a program writes to ask the terminal where the
// cursor is.
const cursorQuery = "\x1b[6n"

// startTerminal starts shelter with args on a new pseudo-terminal, with
// HOME, the state and the config directories under dir.
func startTerminal(t *testing.T, dir string, env []string, args ...string) *terminal {
	t.Helper()
	tm := startProgram(t, dir, env, "shelter", args...)
	tm.editor = !slices.Contains(args, "-c")
	return tm
}

// startMuteTerminal starts shelter as startTerminal does, on a terminal
// that never answers the cursor position query (script(1) fed by a
// pipe, a harness that only reads). Keys are typed at once: there are
// no queries to wait for.
func startMuteTerminal(t *testing.T, dir string, env []string, args ...string) *terminal {
	t.Helper()
	return startOn(t, dir, env, true, "shelter", args...)
}

// startProgram starts the program name (on PATH) with args on a new
// pseudo-terminal, as startTerminal does; keys are typed at once.
func startProgram(t *testing.T, dir string, env []string, name string, args ...string) *terminal {
	t.Helper()
	return startOn(t, dir, env, false, name, args...)
}

// startOn starts the program name with args on a new pseudo-terminal,
// which answers cursor queries unless mute.
func startOn(t *testing.T, dir string, env []string, mute bool, name string, args ...string) *terminal {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not on PATH: %v", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"TERM=xterm",
		"LANG=C.UTF-8",
	}, env...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: termRows, Cols: termCols})
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	tm := &terminal{t: t, cmd: cmd, ptmx: ptmx, read: make(chan struct{}, 1), done: make(chan struct{}), mute: mute}
	go tm.readLoop()
	t.Cleanup(func() {
		if tm.cmd.ProcessState == nil {
			tm.cmd.Process.Kill()
			tm.cmd.Wait()
		}
		tm.ptmx.Close()
		<-tm.done
	})
	return tm
}

var escapeSeq = regexp.MustCompile(`\x1b(\[[0-9;?<=>]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78DEHMNOZc])`)

func (tm *terminal) readLoop() {
	defer close(tm.done)
	buf := make([]byte, 4096)
	followed := 0 // how much of raw the cursor has followed
	for {
		n, err := tm.ptmx.Read(buf)
		if n > 0 {
			tm.mu.Lock()
			tm.raw = append(tm.raw, buf[:n]...)
			for !tm.mute {
				q := bytes.Index(tm.raw[followed:], []byte(cursorQuery))
				if q < 0 {
					break
				}
				tm.cursor.move(tm.raw[followed : followed+q])
				followed += q + len(cursorQuery)
				fmt.Fprintf(tm.ptmx, "\x1b[%d;%dR", tm.cursor.row, tm.cursor.col)
			}
			tm.mu.Unlock()
			select {
			case tm.read <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// screen is the text shelter printed so far, escape sequences and
// carriage returns left out; tm.mu is held.
func (tm *terminal) screen() []byte {
	end := len(tm.raw)
	if i := bytes.LastIndexByte(tm.raw, 0x1b); i >= 0 && end-i < 16 {
		if loc := escapeSeq.FindIndex(tm.raw[i:]); loc == nil || loc[0] != 0 {
			end = i // the start of a sequence still arriving
		}
	}
	text := escapeSeq.ReplaceAll(tm.raw[:end], nil)
	return bytes.ReplaceAll(text, []byte("\r"), nil)
}

// cursorShown ends each of the line editor's redraws.
const cursorShown = "\x1b[?25h"

// typeKeys writes keys as typed on the keyboard, one key at a time, each
// once the line editor waits for it. The editor asks where the cursor is
// (cursorQuery) in each redraw, and keys it reads together with the
// terminal's answer are taken for part of it and dropped, so a driver
// that types while the editor draws loses keys (a person typing at that
// speed, or pasting without bracketed paste, would too). The editor
// waits for a key once it has redrawn after the last one: a cursor query
// came after it (readLoop answers each as it reads it), and what shelter
// printed since ends with the cursor shown again. Every key the editor
// reads redraws it; Enter redraws it once the entry has run, at the next
// prompt. Keys for a script (-c) are typed at once, as are those for a
// program an entry runs: see typeNow.
func (tm *terminal) typeKeys(keys string) {
	tm.t.Helper()
	if !tm.editor {
		tm.typeNow(keys)
		return
	}
	for _, key := range splitKeys(keys) {
		tm.waitEditor(key)
		tm.write(key)
	}
}

// waitEditor waits for the line editor to wait for a key (see typeKeys),
// and notes that key is typed.
func (tm *terminal) waitEditor(key string) {
	tm.t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		tm.mu.Lock()
		q := bytes.LastIndex(tm.raw, []byte(cursorQuery))
		idle := q >= tm.typedAt && bytes.HasSuffix(tm.raw[q:], []byte(cursorShown))
		if idle {
			tm.typedAt = len(tm.raw)
		}
		rest := string(tm.raw[max(q, 0):])
		tm.mu.Unlock()
		if idle {
			return
		}
		select {
		case <-tm.read:
		case <-tm.done:
			tm.t.Fatalf("shelter ended before its line editor read %q", key)
		case <-deadline.C:
			tm.t.Fatalf("waited %s for the line editor to wait for a key, to type %q; since its last cursor query it printed %q", waitFor, key, rest)
		}
	}
}

// splitKeys splits keys into keys as a keyboard sends them: a character,
// or an escape sequence (an arrow key's ESC[A).
func splitKeys(keys string) []string {
	var out []string
	for len(keys) > 0 {
		n := len(string([]rune(keys)[:1]))
		if loc := keySeq.FindStringIndex(keys); loc != nil {
			n = loc[1]
		}
		out = append(out, keys[:n])
		keys = keys[n:]
	}
	return out
}

var keySeq = regexp.MustCompile(`^\x1b(\[[0-9;]*[@-~]|O[@-~])`)

// typeNow writes keys at once: to a script's reads, or to a program an
// entry runs once the test has seen it ready (the line editor does not
// draw while it runs).
func (tm *terminal) typeNow(keys string) {
	tm.t.Helper()
	tm.mu.Lock()
	tm.typedAt = len(tm.raw)
	tm.mu.Unlock()
	tm.write(keys)
}

func (tm *terminal) write(keys string) {
	tm.t.Helper()
	if _, err := tm.ptmx.Write([]byte(keys)); err != nil {
		tm.t.Fatalf("typing %q: %v", keys, err)
	}
}

// expect waits for text to appear on the screen after what the last
// expect matched, and consumes the screen up to its end.
func (tm *terminal) expect(text string) {
	tm.t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		tm.mu.Lock()
		out := tm.screen()
		i := bytes.Index(out[tm.seen:], []byte(text))
		if i >= 0 {
			tm.seen += i + len(text)
		}
		rest := string(out[tm.seen:])
		tm.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-tm.read:
		case <-tm.done:
			tm.mu.Lock()
			i := bytes.Index(tm.screen()[tm.seen:], []byte(text))
			tm.mu.Unlock()
			if i < 0 {
				tm.t.Fatalf("shelter ended before printing %q; after the last match it printed %q", text, rest)
			}
		case <-deadline.C:
			tm.t.Fatalf("waited %s for %q; after the last match the screen has %q", waitFor, text, rest)
		}
	}
}

// expectLine waits for a line that matches re, and returns its submatches.
func (tm *terminal) expectLine(re string) []string {
	tm.t.Helper()
	rx := regexp.MustCompile("(?m)" + re)
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	ended := false // the program ended: its last output is read, look once more
	for {
		tm.mu.Lock()
		screen := tm.screen()
		m := rx.FindSubmatchIndex(screen[tm.seen:])
		var out []string
		if m != nil {
			for i := 0; i < len(m); i += 2 {
				if m[i] >= 0 {
					out = append(out, string(screen[tm.seen+m[i]:tm.seen+m[i+1]]))
				} else {
					out = append(out, "")
				}
			}
			tm.seen += m[1]
		}
		rest := string(screen[tm.seen:])
		tm.mu.Unlock()
		if m != nil {
			return out
		}
		select {
		case <-tm.read:
		case <-tm.done:
			// The read of its last output may have come with the end,
			// and this select taken the end first.
			if ended {
				tm.t.Fatalf("shelter ended before printing a line matching %q; it printed %q", re, rest)
			}
			ended = true
		case <-deadline.C:
			tm.t.Fatalf("waited %s for a line matching %q; the screen has %q", waitFor, re, rest)
		}
	}
}

// lines are the lines of the whole screen that match re.
func (tm *terminal) lines(re string) []string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	var out []string
	for _, m := range regexp.MustCompile("(?m)"+re+".*$").FindAll(tm.screen(), -1) {
		out = append(out, string(m))
	}
	return out
}

// wait waits for shelter to exit and returns its status.
func (tm *terminal) wait() int {
	tm.t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- tm.cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			tm.t.Fatal(err)
		}
		return 0
	case <-time.After(waitFor):
		out, _ := exec.Command("sh", "-c", fmt.Sprintf("for t in /proc/%d/task/*; do echo $t $(cut -d' ' -f3 $t/stat) $(cat $t/wchan); done; ps -o pid,pgid,stat,args -g $(ps -o sid= -p %d)", tm.cmd.Process.Pid, tm.cmd.Process.Pid)).CombinedOutput()
		tm.t.Logf("%s", out)
		tm.cmd.Process.Signal(syscall.SIGQUIT)
		time.Sleep(time.Second)
		tm.mu.Lock()
		tm.t.Logf("screen: %s", tm.screen())
		tm.mu.Unlock()
		tm.t.Fatalf("shelter did not exit within %s", waitFor)
		return -1
	}
}

// fullscreenMain is shelter-fullscreen, a stand-in for a full-screen
// program such as vim: it puts the terminal in raw mode and switches to
// the alternate screen, reads one key, says which, and exits leaving
// the terminal in raw mode (as a program killed or crashed would).
func fullscreenMain() {
	if _, err := term.MakeRaw(int(os.Stdin.Fd())); err != nil {
		io.WriteString(os.Stderr, "fullscreen: "+err.Error()+"\n")
		os.Exit(1)
	}
	io.WriteString(os.Stdout, "\x1b[?1049hFULLSCREEN-READY\r\n")
	var key [1]byte
	if _, err := os.Stdin.Read(key[:]); err != nil {
		os.Exit(1)
	}
	io.WriteString(os.Stdout, "\x1b[?1049lGOT:"+strings.TrimSpace(string(key[:]))+"\r\n")
	os.Exit(0)
}
