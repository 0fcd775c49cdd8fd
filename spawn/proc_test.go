package spawn_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/spawn"
)

func shCmd(t *testing.T, script string) *spawn.Cmd {
	return &spawn.Cmd{Path: lookSh(t), Args: []string{"sh", "-c", script}, Env: []string{"PATH=" + os.Getenv("PATH")}, Dir: t.TempDir()}
}

// A timeout ends the whole process group, background
// members included, within the grace.
func TestRunTimeoutKillsGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	c := shCmd(t, "sleep 100 & sleep 100")
	c.Grace = 200 * time.Millisecond
	var pgid int
	c.Started = func(pid int) { pgid = pid }
	start := time.Now()
	status, err := spawn.Run(ctx, c)
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if status != 128+int(syscall.SIGTERM) {
		t.Errorf("status = %d, want %d", status, 128+int(syscall.SIGTERM))
	}
	if elapsed >= 1500*time.Millisecond {
		t.Errorf("took %s, want under 1.5s", elapsed)
	}
	waitGone(t, "process group", inGroup(pgid))
}

// A child that ignores SIGTERM gets SIGKILL once the
// grace has passed.
func TestRunKillsAfterGrace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := shCmd(t, `trap "" TERM; echo ready; while :; do sleep 1; done`)
	c.Grace = 300 * time.Millisecond
	out := newNotifyWriter("ready")
	c.Stdout = out
	var pgid int
	c.Started = func(pid int) { pgid = pid }
	type result struct {
		status int
		err    error
		at     time.Time
	}
	done := make(chan result, 1)
	go func() {
		status, err := spawn.Run(ctx, c)
		done <- result{status, err, time.Now()}
	}()
	out.wait(t)
	cancelled := time.Now()
	cancel()
	r := <-done
	if r.status != 137 {
		t.Errorf("status = %d, want 137 (SIGKILL)", r.status)
	}
	if !errors.Is(r.err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", r.err)
	}
	if d := r.at.Sub(cancelled); d < c.Grace {
		t.Errorf("returned %s after cancel, before the grace of %s", d, c.Grace)
	}
	waitGone(t, "process group", inGroup(pgid))
}

func TestRunSignal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	c := &spawn.Cmd{Path: "/bin/sleep", Args: []string{"sleep", "100"}, Dir: "/", Signal: syscall.SIGINT}
	status, err := spawn.Run(ctx, c)
	if status != 130 || err == nil {
		t.Fatalf("Run = %d, %v; want 130 and the context's error", status, err)
	}
}

// A child that exits leaves nothing of its group running.
func TestRunEndsLeftovers(t *testing.T) {
	const marker = "31.777"
	c := shCmd(t, "sleep "+marker+" & echo started")
	c.Grace = 100 * time.Millisecond
	status, err := spawn.Run(context.Background(), c)
	if status != 0 || err != nil {
		t.Fatalf("Run = %d, %v", status, err)
	}
	waitGone(t, "leftover", withArgs("sleep "+marker))
}

func TestRunExitStatus(t *testing.T) {
	dir := t.TempDir()
	noExec := filepath.Join(dir, "noexec")
	if err := os.WriteFile(noExec, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("echo no shebang\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh := lookSh(t)
	tests := []struct {
		name    string
		path    string
		args    []string
		status  int
		wantErr error
	}{
		{"exit 0", sh, []string{"sh", "-c", "exit 0"}, 0, nil},
		{"exit 3", sh, []string{"sh", "-c", "exit 3"}, 3, nil},
		{"SIGKILL", sh, []string{"sh", "-c", "kill -9 $$"}, 137, nil},
		{"SIGTERM", sh, []string{"sh", "-c", "kill -15 $$"}, 143, nil},
		{"missing", filepath.Join(dir, "missing"), []string{"missing"}, 127, syscall.ENOENT},
		{"directory", dir, []string{"dir"}, 126, syscall.EACCES},
		{"no exec bit", noExec, []string{"noexec"}, 126, syscall.EACCES},
		{"no shebang", script, []string{"script"}, 126, spawn.ErrNoExec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, err := spawn.Run(context.Background(), &spawn.Cmd{Path: tt.path, Args: tt.args, Dir: dir})
			if status != tt.status {
				t.Errorf("status = %d, want %d", status, tt.status)
			}
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestRunEnvExactly(t *testing.T) {
	t.Setenv("SPAWN_SECRET", "leak")
	for _, env := range [][]string{nil, {"A=1", "B=two words"}} {
		var out strings.Builder
		c := &spawn.Cmd{Path: "/usr/bin/env", Args: []string{"env"}, Env: env, Dir: "/", Stdout: &out}
		if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
			t.Fatalf("Run = %d, %v", status, err)
		}
		want := ""
		for _, kv := range env {
			want += kv + "\n"
		}
		if out.String() != want {
			t.Errorf("env %q printed %q, want %q", env, out.String(), want)
		}
	}
}

func TestRunDir(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	c := &spawn.Cmd{Path: "/bin/pwd", Args: []string{"pwd", "-P"}, Dir: dir, Stdout: &out}
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Fatalf("Run = %d, %v", status, err)
	}
	if got := strings.TrimSpace(out.String()); got != dir {
		t.Errorf("pwd = %q, want %q", got, dir)
	}
}

// No input means /dev/null: a reader of stdin ends at once.
func TestRunStdinNil(t *testing.T) {
	var out strings.Builder
	c := &spawn.Cmd{Path: "/bin/cat", Args: []string{"cat"}, Dir: "/", Stdout: &out}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if status, err := spawn.Run(ctx, c); status != 0 || err != nil {
		t.Fatalf("Run = %d, %v", status, err)
	}
	if out.Len() != 0 {
		t.Errorf("cat printed %q", out.String())
	}
}

// Input is streamed: the child answers the first line before the second
// is written.
func TestRunStdinStreamed(t *testing.T) {
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	c := shCmd(t, `while read line; do echo "got $line"; done`)
	c.Stdin, c.Stdout = pr, outW
	done := make(chan error, 1)
	go func() {
		_, err := spawn.Run(context.Background(), c)
		outW.Close()
		done <- err
	}()
	lines := bufio.NewReader(outR)
	for _, word := range []string{"one", "two"} {
		fmt.Fprintln(pw, word)
		got, err := lines.ReadString('\n')
		if err != nil || got != "got "+word+"\n" {
			t.Fatalf("read %q, %v; want the answer to %q", got, err, word)
		}
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRunNice(t *testing.T) {
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	own := 20 - raw
	if own+5 > 19 {
		t.Skipf("shelter already runs at niceness %d", own)
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	c := shCmd(t, `read go; cat /proc/$$/stat`)
	var out strings.Builder
	c.Stdin, c.Stdout, c.Nice = pr, &out, 5
	c.Started = func(int) { go fmt.Fprintln(pw, "go") }
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Fatalf("Run = %d, %v", status, err)
	}
	stat := out.String()
	fields := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	// After the comm: state(3) ppid pgrp session tty tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime priority nice(19).
	if got, _ := strconv.Atoi(fields[16]); got != own+5 {
		t.Errorf("child niceness = %d, want %d", got, own+5)
	}
}

// On Linux a child dies with the process that started it.
func TestRunParentDeath(t *testing.T) {
	if os.Getenv("SPAWN_ORPHAN_HELPER") == "1" {
		c := &spawn.Cmd{Path: "/bin/sleep", Args: []string{"sleep", "37.123"}, Dir: "/"}
		c.Started = func(pid int) {
			fmt.Println(pid)
			os.Exit(0)
		}
		spawn.Run(context.Background(), c)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestRunParentDeath$")
	cmd.Env = append(os.Environ(), "SPAWN_ORPHAN_HELPER=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("helper printed %q", out)
	}
	waitGone(t, "orphan", func(p proc) bool { return p.pid == pid && p.cmdline == "sleep 37.123" })
}

func TestRunCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	started := false
	c := &spawn.Cmd{Path: "/bin/true", Args: []string{"true"}, Dir: "/", Started: func(int) { started = true }}
	if _, err := spawn.Run(ctx, c); !errors.Is(err, context.Canceled) || started {
		t.Fatalf("Run = %v, started %v; want context.Canceled and nothing started", err, started)
	}
}

// A grandchild that left the group and keeps the output pipe open holds
// Run no longer than the grace; what was printed before is kept, and Run
// says the rest was cut.
func TestRunEscapedHolderOfOutput(t *testing.T) {
	const marker = "31.901"
	t.Cleanup(func() { killMatching(t, withArgs("sleep "+marker)) })
	out := spawn.NewSink(0, 0, "", "out")
	// The child waits until the grandchild has a session of its own.
	c := shCmd(t, `setsid sh -c 'echo >ready; exec sleep `+marker+`' & until [ -s ready ]; do sleep 0.01; done; echo hi`)
	c.Stdout, c.Stderr, c.Grace = out, out, 200*time.Millisecond
	start := time.Now()
	status, err := spawn.Run(context.Background(), c)
	if status != 0 || !errors.Is(err, spawn.ErrOutputCut) {
		t.Fatalf("Run = %d, %v; want 0, %v", status, err, spawn.ErrOutputCut)
	}
	// The holder keeps the pipe for 31.9 s; Run must not wait for it. A
	// loaded machine may take seconds to run the rest, so the bound is
	// the holder's life, not the grace.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Run took %s: it waited for the escaped holder", d)
	}
	if got := string(out.Bytes()); got != "hi\n" {
		t.Errorf("output %q", got)
	}
}

// A grandchild in the group that ignores SIGTERM is killed after the
// grace, before the output's wait delay: nothing is cut.
func TestRunLeftoverHolderOfOutput(t *testing.T) {
	const marker = "sleep 31.902"
	out := spawn.NewSink(0, 0, "", "out")
	c := shCmd(t, `(trap "" TERM; `+marker+`) & echo hi`)
	c.Stdout, c.Stderr, c.Grace = out, out, 200*time.Millisecond
	status, err := spawn.Run(context.Background(), c)
	if status != 0 || err != nil {
		t.Fatalf("Run = %d, %v", status, err)
	}
	if got := string(out.Bytes()); got != "hi\n" {
		t.Errorf("output %q", got)
	}
	waitGone(t, "leftover grandchild", withArgs(marker))
}

// Output written to one writer on both streams keeps its order.
func TestRunSharedWriter(t *testing.T) {
	out := spawn.NewSink(0, 0, "", "out")
	c := shCmd(t, "echo 1; echo 2 >&2; echo 3; echo 4 >&2")
	c.Stdout, c.Stderr = out, out
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Fatalf("Run = %d, %v", status, err)
	}
	if got := string(out.Bytes()); got != "1\n2\n3\n4\n" {
		t.Errorf("output %q", got)
	}
}

// TestRunRetriesAProgramBusyForWriting: a program whose file is still
// open for writing somewhere (ETXTBSY, as one just written is while a
// concurrently forked child holds the descriptor) starts once the writer
// lets go. os/exec refuses a second Start of one Cmd, so each retry
// starts a fresh one.
func TestRunRetriesAProgramBusyForWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	retried := false
	defer spawn.BeforeRetry(func() {
		if !retried {
			retried = true
			w.Close()
		}
	})()
	out, errOut := spawn.NewSink(0, 0, "", "out"), spawn.NewSink(0, 0, "", "err")
	status, err := spawn.Run(context.Background(), &spawn.Cmd{Path: path, Args: []string{"prog"}, Dir: "/", Stdout: out, Stderr: errOut})
	if status != 0 || err != nil || string(out.Bytes()) != "ran\n" || !retried {
		t.Errorf("Run = %d, %v; stdout %q, stderr %q; retried %v", status, err, out.Bytes(), errOut.Bytes(), retried)
	}
}

// A child off a terminal leads a session of its own, whose number is
// its pid, as is its process group's: it has no controlling terminal.
func TestRunOwnSession(t *testing.T) {
	var out strings.Builder
	c := shCmd(t, "cat /proc/$$/stat")
	c.Stdout = &out
	var pid int
	c.Started = func(p int) { pid = p }
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Fatalf("Run: %d %v", status, err)
	}
	stat := out.String()
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	// After the comm: state ppid pgrp session tty_nr.
	if want := strconv.Itoa(pid); f[2] != want || f[3] != want || f[4] != "0" {
		t.Errorf("group %s, session %s, terminal %s; want %s, %s, 0", f[2], f[3], f[4], want, want)
	}
}
