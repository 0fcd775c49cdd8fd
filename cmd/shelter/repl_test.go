package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/internal/proctest"
)

// The REPL's tests run the shelter binary (the test binary, as
// testscript put it on PATH) on a pseudo-terminal and type at it.

const (
	keyUp    = "\x1b[A"
	keyCtrlC = "\x03"
	keyCtrlD = "\x04"
	keyCtrlR = "\x12"
	keyCtrlU = "\x15"
	keyTab   = "\t"
)

func TestREPLRunsALineAndCdChangesThePrompt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tm := startTerminal(t, dir, nil, "--norc")
	tm.expect("shelter:~$ ")
	tm.typeKeys("echo hi\r")
	tm.expectLine(`^hi$`)
	tm.expect("shelter:~$ ")
	tm.typeKeys("cd /tmp\r")
	tm.expect("shelter:/tmp$ ")
	tm.typeKeys(keyCtrlD)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

func TestREPLContinuesAnIncompleteEntry(t *testing.T) {
	t.Parallel()
	tm := startTerminal(t, t.TempDir(), nil, "repl", "--norc")
	tm.expect("$ ")
	tm.typeKeys("for i in 1 2 3; do\r")
	tm.expect("> ")
	tm.typeKeys("echo n$i\r")
	tm.expect("> ")
	tm.typeKeys("done\r")
	tm.expectLine(`^n1$`)
	tm.expectLine(`^n2$`)
	tm.expectLine(`^n3$`)
	tm.expect("$ ")
	tm.typeKeys("echo 'one\r")
	tm.expect("> ")
	tm.typeKeys("two'\r")
	tm.expectLine(`^one$`)
	tm.expectLine(`^two$`)
	tm.expect("$ ")
	tm.typeKeys("cat <<EOF\r")
	tm.expect("> ")
	tm.typeKeys("body-$((3*3))\r")
	tm.expect("> ")
	tm.typeKeys("EOF\r")
	tm.expectLine(`^body-9$`)
	tm.expect("$ ")
	tm.typeKeys("exit\r")
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

func TestREPLCtrlCInterruptsTheRunningCommand(t *testing.T) {
	t.Parallel()
	const marker = "sleep 4217"
	tm := startTerminal(t, t.TempDir(), nil, "--norc")
	tm.expect("$ ")
	tm.typeKeys(marker + "; echo not-reached\r")
	deadline := time.Now().Add(waitFor)
	for len(proctest.With(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not start", marker)
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	tm.typeNow(keyCtrlC)
	tm.expect("shelter:~ [130]$ ")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("back at the prompt %s after Ctrl-C", d)
	}
	if left := proctest.With(marker); len(left) > 0 {
		t.Errorf("left running: %+v", left)
	}
	tm.typeKeys("echo $?\r")
	tm.expectLine(`^130$`)
	tm.typeKeys("echo partial" + keyCtrlC)
	tm.typeKeys("exit 0\r")
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if lines := tm.lines(`^not-reached$`); len(lines) > 0 {
		t.Errorf("the rest of the line ran after Ctrl-C: %q", lines)
	}
}

func TestREPLHistoryIsSharedWithTheNextRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := startTerminal(t, dir, nil, "--norc")
	first.expect("$ ")
	first.typeKeys("echo remembered-$((6*7))\r")
	first.expectLine(`^remembered-42$`)
	first.typeKeys("for i in a b; do\recho $i$i\rdone\r")
	first.expectLine(`^bb$`)
	first.typeKeys(keyCtrlD)
	first.wait()

	b, err := os.ReadFile(filepath.Join(dir, "state", "shelter", "history"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "echo remembered-$((6*7))\nfor i in a b; do\\necho $i$i\\ndone\n"; string(b) != want {
		t.Errorf("history file:\n%q\nwant\n%q", b, want)
	}

	second := startTerminal(t, dir, nil, "--norc")
	second.expect("$ ")
	second.typeKeys(keyUp + keyUp)
	second.expect("echo remembered-$((6*7))")
	second.typeKeys("\r")
	second.expectLine(`^remembered-42$`)
	second.expect("$ ")
	second.typeKeys(keyCtrlR + "remem")
	second.expect("echo remembered-$((6*7))")
	second.typeKeys("\r")
	second.expectLine(`^remembered-42$`)
	second.expect("$ ")
	second.typeKeys(keyCtrlD)
	if code := second.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

func TestREPLTabCompletes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "uniquely-named.txt"), []byte("file content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "with space's.txt"), []byte("quoted content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tools, err := filepath.Abs(filepath.Join("..", "..", "examples", "tools.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tm := startTerminal(t, dir, nil, "--norc", "--tools", tools)
	tm.expect("$ ")
	// The screen shows a stream of redraws, not what the line holds: the
	// history has the completed lines as run.
	tm.typeKeys("git sta" + keyTab)
	tm.typeKeys(" --porc" + keyTab)
	tm.typeKeys("\r")
	tm.expect("$ ")
	tm.typeKeys("cat uniq" + keyTab)
	tm.typeKeys("\r")
	tm.expectLine(`^file content$`)
	tm.typeKeys(`cat "with` + keyTab)
	tm.typeKeys("\r")
	tm.expectLine(`^quoted content$`)
	tm.typeKeys(keyCtrlD)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	b, err := os.ReadFile(filepath.Join(dir, "state", "shelter", "history"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^git status +--porcelain *\ncat uniquely-named.txt *\ncat "with space's.txt" *\n$`).Match(b) {
		t.Errorf("history after completing:\n%s", b)
	}
}

func TestREPLFullScreenProgramGetsTheKeyboardAndTheModeIsRestored(t *testing.T) {
	t.Parallel()
	tm := startTerminal(t, t.TempDir(), nil, "--norc")
	tm.expect("$ ")
	tm.typeKeys("echo mode-before: $(stty -g)\r")
	before := tm.expectLine(`^mode-before: (\S+)$`)[1]
	tm.typeKeys("shelter-fullscreen\r")
	tm.expect("FULLSCREEN-READY")
	tm.typeNow("x")
	tm.expect("GOT:x")
	tm.expect("$ ")
	tm.typeKeys("echo mode-after: $(stty -g)\r")
	after := tm.expectLine(`^mode-after: (\S+)$`)[1]
	if before != after {
		t.Errorf("terminal mode before %s, after %s", before, after)
	}
	tm.typeKeys(keyCtrlD)
	tm.wait()
}

func TestREPLCtrlDExitsWithTheLastStatusAndRunsTheExitTrap(t *testing.T) {
	t.Parallel()
	tm := startTerminal(t, t.TempDir(), nil, "--norc")
	tm.expect("$ ")
	tm.typeKeys("trap 'echo trap-ran-with-$?' EXIT\r")
	tm.expect("$ ")
	tm.typeKeys("(exit 3)\r")
	tm.expect("shelter:~ [3]$ ")
	tm.typeKeys(keyCtrlD)
	tm.expectLine(`^trap-ran-with-3$`)
	if code := tm.wait(); code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	if lines := tm.lines(`^trap-ran`); len(lines) != 1 {
		t.Errorf("the EXIT trap ran %d times: %q", len(lines), lines)
	}
}

func TestREPLShowsARefusalWithItsColumn(t *testing.T) {
	t.Parallel()
	tools, err := filepath.Abs(filepath.Join("..", "..", "examples", "tools.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tm := startTerminal(t, t.TempDir(), nil, "--norc", "--tools", tools)
	tm.expect("$ ")
	tm.typeKeys("echo ok; git log --output x\r")
	// The caret is under git, after the prompt the entry was typed at
	// ("shelter:~$ "), not the "shelter:~ [2]$ " that follows it.
	tm.expectLine(`^ {20}\^ git log: unknown flag '--output'; allowed: `)
	tm.expect("shelter:~ [2]$ ")
	tm.typeKeys(keyCtrlD)
	if code := tm.wait(); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
}

// An entry that uses a known gap runs, and its note follows its output.
func TestREPLNotesAKnownGap(t *testing.T) {
	t.Parallel()
	tm := startTerminal(t, t.TempDir(), nil, "--norc")
	tm.expect("$ ")
	tm.typeKeys("v=abc; echo ${v/#a/X}\r")
	tm.expectLine(`^abc\r?$`)
	tm.expectLine(`^shelter: note: line 1:13: \$\{v/#p/r\} and \$\{v/%p/r\}: the # or % is a literal character`)
	tm.expect("$ ")
	tm.typeKeys(keyCtrlD)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

func TestREPLSourcesTheRCFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rc := filepath.Join(dir, "config", "shelter", "rc.sh")
	os.MkdirAll(filepath.Dir(rc), 0o755)
	if err := os.WriteFile(rc, []byte("PS1='custom> '\ngreet() { echo hello-from-rc; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := startTerminal(t, dir, nil)
	tm.expect("custom> ")
	tm.typeKeys("greet\r")
	tm.expectLine(`^hello-from-rc$`)
	tm.typeKeys(keyCtrlD)
	tm.wait()

	tm = startTerminal(t, dir, nil, "--norc")
	tm.expect("shelter:~$ ")
	tm.typeKeys(keyCtrlD)
	tm.wait()
}

func TestScriptAtATerminalReadsTheKeyboard(t *testing.T) {
	t.Parallel()
	tm := startTerminal(t, t.TempDir(), nil, "-c", `read -p "name? " n; echo "hello, $n"`)
	tm.expect("name? ")
	tm.typeKeys("bob\r")
	tm.expectLine(`^hello, bob$`)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

func TestREPLReadInterruptedLeavesTheKeyboardToThePrompt(t *testing.T) {
	t.Parallel()
	tm := startTerminal(t, t.TempDir(), nil, "--norc")
	tm.expect("$ ")
	tm.typeKeys(`read -p "$((6*7))> " y` + "\r")
	tm.expect("42> ")
	tm.typeNow(keyCtrlC)
	tm.expect("shelter:~ [130]$ ")
	// An abandoned read of the keyboard would take the first byte of
	// the terminal's answer to the line editor's cursor query, and the
	// prompt would wait for the rest forever.
	tm.typeKeys("echo ok-$((1+1))\r")
	tm.expectLine(`^ok-2$`)
	tm.typeKeys("read -t 0.3 x\r")
	tm.expect("shelter:~ [142]$ ")
	tm.typeKeys("echo ok-$((2+2))\r")
	tm.expectLine(`^ok-4$`)
	tm.typeKeys(keyCtrlD)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

func TestScriptReadTimedOutLosesNoKey(t *testing.T) {
	t.Parallel()
	tm := startTerminal(t, t.TempDir(), nil, "-c", `read -t 0.3 x; echo timed-out-$?; read y; echo "[$y]"`)
	tm.expect("timed-out-142")
	tm.typeKeys("hello\r")
	tm.expectLine(`^\[hello\]$`)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

func TestScriptInAPipelineOfAnInteractiveShellLeavesItTheTerminal(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	tm := startProgram(t, dir, []string{"PS1=bash-ready$ "}, "bash", "--norc", "--noprofile", "-i")
	tm.expect("bash-ready$ ")
	// The first shelter runs a child that holds on until the second
	// stage has read the keyboard; the second (in the same process group,
	// as bash runs a pipeline) reads it once the child runs. Were the
	// child given the terminal, the read would stop the job.
	holder := `sh -c "touch started; n=0; until [ -e done ] || [ \$n = 2000 ]; do sleep 0.01; n=\$((n+1)); done"`
	reader := `until [ -e started ]; do sleep 0.01; done; echo READY-$((1+1)); read k </dev/tty; echo GOT:"$k"; touch done`
	tm.typeKeys("shelter -c '" + holder + "' | shelter -c '" + reader + "'\r")
	tm.expect("READY-2")
	tm.typeKeys("x\r")
	tm.expect("GOT:x")
	tm.expect("bash-ready$ ")
	if stopped := stoppedIn(tm.cmd.Process.Pid); len(stopped) > 0 {
		t.Errorf("stopped processes in the session: %q", stopped)
	}
	tm.typeKeys("exit\r")
	tm.wait()
	if lines := tm.lines(`Stopped`); len(lines) > 0 {
		t.Errorf("bash reported a stopped job: %q", lines)
	}
}

// stoppedIn lists the stopped processes of session sid, from /proc.
func stoppedIn(sid int) []string {
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		// After the command: state, ppid, pgrp, session.
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 3 && f[0] == "T" && f[3] == strconv.Itoa(sid) {
			out = append(out, string(b))
		}
	}
	return out
}

func TestREPLHistoryReadInPartIsKeptAndAppendedTo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "state", "shelter", "history")
	os.MkdirAll(filepath.Dir(file), 0o700)
	// A line longer than any entry the reader takes ends the reading.
	long := "echo kept-$((40+2))\n" + strings.Repeat("x", 17<<20) + "\n"
	if err := os.WriteFile(file, []byte(long), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := startTerminal(t, dir, nil, "--norc")
	tm.expect("shelter: history: ")
	tm.expect("$ ")
	tm.typeKeys(keyUp)
	tm.expect("echo kept-$((40+2))")
	tm.typeKeys(" again\r")
	tm.expectLine(`^kept-42 again$`)
	tm.typeKeys(keyCtrlD)
	tm.wait()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := long + "echo kept-$((40+2)) again\n"; string(b) != want {
		t.Errorf("history file: %d bytes ending in %q; want the %d read and the new entry", len(b), b[max(len(b)-40, 0):], len(long))
	}
}

func TestREPLPipelineStagesShareTheTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tm := startTerminal(t, dir, nil, "--norc")
	tm.expect("$ ")
	// The reader, a pager's stand-in, starts first and reads the
	// keyboard once the second stage's program runs, which starts
	// later: with a process group per stage that program would hold the
	// terminal, and the reader would be stopped at each read.
	reader := `sh -c 'touch up; until [ -e started ]; do sleep 0.01; done; echo READY-$((1+1)) >&2; read k </dev/tty; echo GOT:"$k" >&2; touch done'`
	holder := `{ n=0; until [ -e up ] || [ $n = 2000 ]; do read -t 0.01 x; n=$((n+1)); done; sh -c 'touch started; n=0; until [ -e done ] || [ $n = 2000 ]; do sleep 0.01; n=$((n+1)); done'; }`
	tm.typeKeys(reader + " | " + holder + "\r")
	tm.expect("READY-2")
	tm.typeNow("x\r")
	tm.expect("GOT:x")
	tm.expect("shelter:~$ ")
	tm.typeKeys(keyCtrlD)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

func TestREPLPipelineStageOutlivesTheGroupsFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tm := startTerminal(t, dir, nil, "--norc")
	tm.expect("$ ")
	// The first stage makes the group and ends first; the second joined
	// it and still reads the keyboard: the group is not ended with the
	// first stage's leftovers.
	first := `sh -c 'touch up; until [ -e started ]; do sleep 0.01; done'`
	second := `{ n=0; until [ -e up ] || [ $n = 2000 ]; do read -t 0.01 x; n=$((n+1)); done; sh -c 'touch started; sleep 0.3; echo READY-$((1+1)) >&2; read k </dev/tty; echo GOT:"$k" >&2'; }`
	tm.typeKeys(first + " | " + second + "\r")
	tm.expect("READY-2")
	tm.typeNow("y\r")
	tm.expect("GOT:y")
	tm.expect("shelter:~$ ")
	tm.typeKeys(keyCtrlD)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

// TestREPLOnAMuteTerminalReadsItsLines: on a terminal that never
// answers the line editor's cursor query, as script(1) fed by a pipe
// (printf 'echo hi\nexit 5\n' | script -qc shelter /dev/null), the
// prompt asks once, gives up at its deadline and edits without asking:
// lines typed ahead, before the prompt, are read and run.
func TestREPLOnAMuteTerminalReadsItsLines(t *testing.T) {
	t.Parallel()
	tm := startMuteTerminal(t, t.TempDir(), nil, "--norc")
	tm.typeNow("echo hi\r")
	tm.expectLine(`^hi$`)
	tm.expect("shelter:~$ ")
	tm.typeNow("echo typed-$((2+3))\r")
	tm.expectLine(`^typed-5$`)
	tm.typeNow("exit 5\r")
	if code := tm.wait(); code != 5 {
		t.Errorf("exit %d, want 5", code)
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if n := bytes.Count(tm.raw, []byte(cursorQuery)); n != 1 {
		t.Errorf("the prompt asked for the cursor %d times, want once; it printed %q", n, tm.raw)
	}
}

// TestREPLOnADumbTerminalPrintsPlainLines: with TERM=dumb the prompt is
// plain text and lines are the terminal's own (its echo, its erase): no
// escape sequence at all, entries of several lines go on on "> ", and
// Ctrl-C at the prompt drops the entry. Entries go to the history file
// as the line editor's do.
func TestREPLOnADumbTerminalPrintsPlainLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tm := startMuteTerminal(t, dir, []string{"TERM=dumb"}, "--norc")
	tm.expect("shelter:~$ ")
	tm.typeNow("echo hi\r")
	tm.expectLine(`^hi$`)
	tm.expect("shelter:~$ ")
	tm.typeNow("for i in 1 2; do\r")
	tm.expect("> ")
	tm.typeNow("echo n$i; done\r")
	tm.expectLine(`^n1$`)
	tm.expectLine(`^n2$`)
	tm.expect("shelter:~$ ")
	tm.typeNow("for x in dropped; do\r")
	tm.expect("> ")
	tm.typeNow("echo $x" + keyCtrlC)
	tm.expect("shelter:~$ ")
	tm.typeNow("echo after-$((3*3))\r")
	tm.expectLine(`^after-9$`)
	tm.expect("shelter:~$ ")
	tm.typeNow("echo after-$((3*3))\r")
	tm.expectLine(`^after-9$`)
	tm.expect("shelter:~$ ")
	tm.typeNow("exit 5\r")
	if code := tm.wait(); code != 5 {
		t.Errorf("exit %d, want 5", code)
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if i := bytes.IndexByte(tm.raw, 0x1b); i >= 0 {
		t.Errorf("the prompt printed an escape sequence at %d: %q", i, tm.raw)
	}
	if regexp.MustCompile(`(?m)^dropped`).Match(tm.screen()) {
		t.Errorf("the entry Ctrl-C dropped ran: %q", tm.raw)
	}
	b, err := os.ReadFile(filepath.Join(dir, "state", "shelter", "history"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "echo hi\nfor i in 1 2; do\\necho n$i; done\necho after-$((3*3))\nexit 5\n"; string(b) != want {
		t.Errorf("history file:\n%q\nwant\n%q", b, want)
	}
}
