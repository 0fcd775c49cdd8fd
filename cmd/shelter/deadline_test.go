package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/shelter-sh/shelter/internal/fifotest"
)

// cliEnd is a way the CLI's call ends early: --timeout 2s (124,
// timed_out) or SIGINT once the command holds its end (130, cancelled).
type cliEnd struct {
	name     string
	code     int
	timedOut bool
}

var cliEnds = []cliEnd{{"timeout", 124, true}, {"interrupt", 130, false}}

// TestCLIDeadlineEndsFIFORead is the table of docs/security.md's
// "Deadlines hold" through the CLI: `shelter --profile sandbox --timeout
// 2s -c ROW` on a FIFO whose other end stays open and silent for
// fifotest.WriterHolds, and `cat` on shelter's own stdin, a pipe whose
// writer stays silent as long, end with 124 and timed_out, or with 130
// and cancelled when interrupted, before the writer goes.
func TestCLIDeadlineEndsFIFORead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("FIFOs and pipes have deadlines on Linux only (docs/security.md)")
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rows := append(fifotest.Rows, fifotest.Row{Name: "stdin", Script: "cat"})
	for _, row := range rows {
		for _, end := range cliEnds {
			t.Run(row.Name+"/"+end.name, func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				cmd := exec.Command(exe, "--profile", "sandbox", "--root", root, "--json", "-c", row.Script)
				cmd.Args[0] = "shelter" // testscript's Main runs it as shelter
				cmd.Dir = root
				if end.timedOut {
					cmd.Args = append(cmd.Args[:1], append([]string{"--timeout", "2s"}, cmd.Args[1:]...)...)
				}
				var ready <-chan struct{}
				var outlived func() bool
				if row.Name == "stdin" {
					in := fifotest.HoldPipe(t, false)
					cmd.Stdin, outlived = in.End, in.Outlived
					ready = scriptStarted(t, cmd, root)
				} else {
					silent := fifotest.Hold(t, fifotest.Make(t, root), row.Writes)
					ready, outlived = silent.Opened(), silent.Outlived
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cmd.Process.Kill() })
				exited := make(chan struct{})
				go func() {
					select {
					case <-ready:
						if !end.timedOut {
							cmd.Process.Signal(os.Interrupt)
						}
					case <-exited:
					}
				}()
				cmd.Wait()
				close(exited)
				if outlived() {
					t.Fatalf("shelter exited only once the writer went, after %s", fifotest.WriterHolds)
				}
				var res struct {
					ExitCode  int  `json:"exit_code"`
					TimedOut  bool `json:"timed_out"`
					Cancelled bool `json:"cancelled"`
				}
				if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
					t.Fatalf("%v; stdout %q, stderr %q", err, stdout.String(), stderr.String())
				}
				if code := cmd.ProcessState.ExitCode(); code != end.code || res.ExitCode != end.code ||
					res.TimedOut != end.timedOut || res.Cancelled == end.timedOut {
					t.Fatalf("status %d, result %+v, want %d (%s); stderr %q", code, res, end.code, end.name, stderr.String())
				}
			})
		}
	}
}

// scriptStarted makes cmd's script signal that it runs: the returned
// channel is closed once the script opened the FIFO "ready" in root,
// which it writes to first.
func scriptStarted(t *testing.T, cmd *exec.Cmd, root string) <-chan struct{} {
	path := filepath.Join(root, "ready")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	last := len(cmd.Args) - 1
	cmd.Args[last] = ": > ready; " + cmd.Args[last]
	return fifotest.Hold(t, path, true).Opened()
}

// TestCLIDeadlineEndsLiveWrite checks a write in shelter's process to
// shelter's own stdout, a pipe whose reader stays open and reads nothing
// for fifotest.WriterHolds: `seq` fills the pipe, and the call still ends
// with its timeout (124) before the reader goes.
func TestCLIDeadlineEndsLiveWrite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pipes shelter was given have deadlines on Linux only (docs/security.md)")
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	cmd := exec.Command(exe, "--profile", "sandbox", "--root", root, "--timeout", "2s", "-c", "seq 1 100000000")
	cmd.Args[0] = "shelter" // testscript's Main runs it as shelter
	cmd.Dir = root
	out := fifotest.HoldPipe(t, true)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out.End, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	out.End.Close() // shelter's now
	cmd.Wait()
	if out.Outlived() {
		t.Fatalf("shelter exited only once its stdout's reader went, after %s", fifotest.WriterHolds)
	}
	if code := cmd.ProcessState.ExitCode(); code != 124 || !bytes.Contains(stderr.Bytes(), []byte("timed out")) {
		t.Fatalf("status %d, stderr %q, want 124 and the timeout's line", code, stderr.String())
	}
}
