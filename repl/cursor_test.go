package repl

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
)

// openTerminal opens a pseudo-terminal: the test plays the terminal on
// its master side, the code under test uses tty.
func openTerminal(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { master.Close(); tty.Close() })
	return master, tty
}

// TestAnswersCursorQueryKeepsTheKeysAroundTheAnswer: keys typed before
// and after the answer, read with it, are the editor's.
func TestAnswersCursorQueryKeepsTheKeysAroundTheAnswer(t *testing.T) {
	master, tty := openTerminal(t)
	go func() {
		// Answer the query once it is read, as a terminal emulator does.
		var seen []byte
		buf := make([]byte, 64)
		for !bytes.Contains(seen, []byte(cursorQuery)) {
			n, err := master.Read(buf)
			if err != nil {
				return
			}
			seen = append(seen, buf[:n]...)
		}
		master.WriteString("ab\x1b[3;7Rcd")
	}()
	answered, keys, err := answersCursorQuery(tty, tty, time.Minute)
	if err != nil || !answered || string(keys) != "ab" && string(keys) != "abcd" {
		t.Fatalf("answered %v, keys %q, err %v; want true, \"abcd\" (or \"ab\" when cd came later), nil", answered, keys, err)
	}
}

// TestAnswersCursorQueryGivesUpAtItsDeadline: a terminal that never
// answers costs the timeout, and what was typed ahead is kept.
func TestAnswersCursorQueryGivesUpAtItsDeadline(t *testing.T) {
	master, tty := openTerminal(t)
	if _, err := master.WriteString("echo hi\n"); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, master) // the query and the echo, unanswered
	answered, keys, err := answersCursorQuery(tty, tty, 50*time.Millisecond)
	if err != nil || answered || string(keys) != "echo hi\n" {
		t.Fatalf("answered %v, keys %q, err %v; want false, \"echo hi\\n\", nil", answered, keys, err)
	}
}

// TestLineReaderReadsOneLineAtATime: nothing past a line is lost, and an
// unfinished last line comes with io.EOF.
func TestLineReaderReadsOneLineAtATime(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("one\ntwo\n\nthree")
	w.Close()
	lr := &lineReader{f: r}
	for _, want := range []struct {
		line string
		err  error
	}{{"one", nil}, {"two", nil}, {"", nil}, {"three", io.EOF}, {"", io.EOF}} {
		line, err := lr.readLine()
		if line != want.line || !errors.Is(err, want.err) && err != want.err {
			t.Errorf("readLine() = %q, %v; want %q, %v", line, err, want.line, want.err)
		}
	}
}
