package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// A job's late output reaches its log and
// never a later call's result.
func TestJobLateOutputGoesToLog(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	// The job prints once the test has seen the call return: a call that
	// waited for its job would never return.
	const job = "(until test -e release; do sleep 0.01; done; echo late) &"
	returned := make(chan kernel.Result, 1)
	go func() {
		res, _ := s.Run(context.Background(), job, kernel.RunOptions{})
		returned <- res
	}()
	var res kernel.Result
	select {
	case res = <-returned:
	case <-time.After(slow):
		os.WriteFile(filepath.Join(s.Dir(), "release"), nil, 0o644)
		t.Fatalf("the call did not return within %s: it waited for the job", slow)
	}
	if res.ExitCode != 0 || res.Stdout != "" || len(res.Jobs) != 1 {
		t.Fatalf("first call: exit %d stdout %q stderr %q jobs %+v", res.ExitCode, res.Stdout, res.Stderr, res.Jobs)
	}
	j := res.Jobs[0]
	if j.ID != 1 || j.Command != job || j.Log == "" {
		t.Errorf("job = %+v", j)
	}
	res = runWith(t, s, "touch release; wait %1; echo after", kernel.RunOptions{})
	if res.ExitCode != 0 || res.Stdout != "after\n" {
		t.Errorf("next call: exit %d stdout %q stderr %q, want only after", res.ExitCode, res.Stdout, res.Stderr)
	}
	if log, err := os.ReadFile(j.Log); err != nil || string(log) != "late\n" {
		t.Errorf("job log %q, %v; want late", log, err)
	}
	if res = runWith(t, s, "true", kernel.RunOptions{}); len(res.Jobs) != 0 {
		t.Errorf("finished job still listed: %+v", res.Jobs)
	}
}

// What a job prints while its call runs is part of that call's result.
func TestJobOutputDuringItsCall(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := runWith(t, s, "echo from-job & wait; echo done", kernel.RunOptions{})
	if res.ExitCode != 0 || res.Stdout != "from-job\ndone\n" {
		t.Errorf("exit %d stdout %q", res.ExitCode, res.Stdout)
	}
}

// jobPID waits for job 1's process to run and returns its pid.
func jobPID(t *testing.T, s *kernel.Session, marker string) int {
	t.Helper()
	eventually(t, marker+" running", func() bool { return len(liveWith(marker)) == 1 })
	var pid int
	// The process may show in the process list a moment before the
	// session has recorded it.
	eventually(t, "jobs -p names it", func() bool {
		res := runWith(t, s, "jobs -p", kernel.RunOptions{})
		var err error
		pid, err = strconv.Atoi(strings.TrimSpace(res.Stdout))
		return err == nil && pid > 0
	})
	return pid
}

// Jobs lists a running job, kill %1 ends it
// and Close ends the rest.
func TestJobsKillAndClose(t *testing.T) {
	const marker = "sleep 31.601"
	s := newSession(t, kernel.Config{KillGrace: 200 * time.Millisecond}, kernel.SessionOptions{})
	res := runWith(t, s, "("+marker+"; echo never) &", kernel.RunOptions{})
	if res.ExitCode != 0 || len(res.Jobs) != 1 {
		t.Fatalf("%+v", res)
	}
	logPath := res.Jobs[0].Log
	pid := jobPID(t, s, marker)
	res = runWith(t, s, "jobs", kernel.RunOptions{})
	if want := "[1]+  Running                 (" + marker + "; echo never) &\n"; res.Stdout != want {
		t.Errorf("jobs printed %q, want %q", res.Stdout, want)
	}
	res = runWith(t, s, "jobs -l", kernel.RunOptions{})
	if want := fmt.Sprintf("[1]+ %d Running                 (%s; echo never) &\n", pid, marker); res.Stdout != want {
		t.Errorf("jobs -l printed %q, want %q", res.Stdout, want)
	}
	if len(res.Jobs) != 1 || res.Jobs[0].PID != pid {
		t.Errorf("Result.Jobs = %+v, want pid %d", res.Jobs, pid)
	}

	res = runWith(t, s, "kill %1", kernel.RunOptions{})
	if res.ExitCode != 0 || res.Stderr != "" {
		t.Fatalf("kill %%1: %+v", res)
	}
	noneLeft(t, marker)
	res = runWith(t, s, "wait %1", kernel.RunOptions{})
	if res.ExitCode != 143 {
		t.Errorf("wait %%1 after kill: exit %d, want 143", res.ExitCode)
	}
	if log, _ := os.ReadFile(logPath); strings.Contains(string(log), "never") {
		t.Error("the job went on after kill")
	}

	runWith(t, s, "sleep 31.602 & sleep 31.603 &", kernel.RunOptions{})
	eventually(t, "both jobs running", func() bool { return len(liveWith("sleep 31.60")) == 2 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	noneLeft(t, "sleep 31.60")
	if _, err := s.Run(context.Background(), "true", kernel.RunOptions{}); !errors.Is(err, kernel.ErrClosed) {
		t.Errorf("Run after Close: %v", err)
	}
}

func TestJobControlRefusals(t *testing.T) {
	s := newSession(t, kernel.Config{KillGrace: 100 * time.Millisecond}, kernel.SessionOptions{})
	// Statuses are bash's: 1 for a signal it does not know and for kill of
	// a job that does not exist, 127 for wait of one; shelter's refusals
	// (2) name what is allowed.
	none := []struct {
		script, stderr string
		code           int
	}{
		{"kill 1", "kill: '1' is not a job or process of this session; allowed: (none)\n", 2},
		{"kill %1", "kill: '%1' is not a job or process of this session; allowed: (none)\n", 1},
		{"kill", "kill: no job or process named; allowed: (none)\n", 2},
		{"kill -x %1", "kill: unknown flag '-x'; allowed: -SIGNAL, -l, -n NUM, -s SIGNAL\n", 2},
		{"kill -s BOGUS %1", "kill: unknown signal 'BOGUS'; allowed: a name such as TERM or KILL, a number (kill -l lists them)\n", 1},
		{"wait %3", "wait: %3: no such job\n", 127},
		{"wait -n", "", 127},
		{"jobs -z", "jobs: unknown flag '-z'; allowed: -l, -p, -r, -s\n", 2},
	}
	for _, tt := range none {
		res := runWith(t, s, tt.script, kernel.RunOptions{})
		if res.ExitCode != tt.code || res.Stderr != tt.stderr {
			t.Errorf("%s: exit %d stderr %q, want %d %q", tt.script, res.ExitCode, res.Stderr, tt.code, tt.stderr)
		}
	}

	const marker = "sleep 31.611"
	runWith(t, s, marker+" &", kernel.RunOptions{})
	pid := jobPID(t, s, marker)
	pool := fmt.Sprintf("%%1, %d", pid)
	for _, script := range []string{"kill 1", "kill %2", fmt.Sprintf("kill %d", os.Getpid()), "kill %1 1"} {
		res := runWith(t, s, script, kernel.RunOptions{})
		target := strings.Fields(script)[len(strings.Fields(script))-1]
		want := fmt.Sprintf("kill: '%s' is not a job or process of this session; allowed: %s\n", target, pool)
		code := 2
		if strings.HasPrefix(target, "%") {
			code = 1 // bash's status for no such job
		}
		if res.ExitCode != code || res.Stderr != want {
			t.Errorf("%s: exit %d stderr %q, want %d %q", script, res.ExitCode, res.Stderr, code, want)
		}
	}
	// A refused list signals nothing, even the allowed targets in it.
	if len(liveWith(marker)) != 1 {
		t.Fatal("a refused kill signalled the job")
	}
	if res := runWith(t, s, "wait %2", kernel.RunOptions{}); res.ExitCode != 127 || res.Stderr != "wait: %2: no such job\n" {
		t.Errorf("wait %%2: %+v", res)
	}
	res := runWith(t, s, fmt.Sprintf("kill -KILL %d; wait %%1", pid), kernel.RunOptions{})
	if res.ExitCode != 137 {
		t.Errorf("kill -KILL PID; wait: %+v", res)
	}
	noneLeft(t, marker)
}

func TestKillSignals(t *testing.T) {
	s := newSession(t, kernel.Config{KillGrace: 100 * time.Millisecond}, kernel.SessionOptions{})
	res := runWith(t, s, "kill -l; kill -l 130 9 TERM", kernel.RunOptions{})
	// bash's table, then the conversions.
	if res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, " 1) SIGHUP\t 2) SIGINT\t 3) SIGQUIT") || !strings.HasSuffix(res.Stdout, "\nINT\nKILL\n15\n") {
		t.Errorf("kill -l: %+v", res)
	}
	for _, tt := range []struct {
		flag string
		code int
	}{{"-INT", 130}, {"-s HUP", 129}, {"-n 9", 137}, {"-SIGTERM", 143}, {"-usr1", 138}} {
		marker := "sleep 31.62" + strconv.Itoa(tt.code)
		runWith(t, s, marker+" &", kernel.RunOptions{})
		eventually(t, marker, func() bool { return len(liveWith(marker)) == 1 })
		res := runWith(t, s, "kill "+tt.flag+" %1; wait %1", kernel.RunOptions{})
		if res.ExitCode != tt.code {
			t.Errorf("kill %s: exit %d, want %d (%+v)", tt.flag, res.ExitCode, tt.code, res)
		}
		noneLeft(t, marker)
	}
}

// kill -HUP passes over what nohup started; the session still ends it.
func TestNohupJobSurvivesHangup(t *testing.T) {
	const marker = "sleep 31.631"
	s := newSession(t, kernel.Config{KillGrace: 100 * time.Millisecond}, kernel.SessionOptions{})
	runWith(t, s, "nohup "+marker+" &", kernel.RunOptions{})
	pid := jobPID(t, s, marker)
	res := runWith(t, s, fmt.Sprintf("kill -HUP %%1; kill -HUP %d; jobs", pid), kernel.RunOptions{})
	if res.ExitCode != 0 || res.Stdout != "[1]+  Running                 nohup "+marker+" &\n" {
		t.Errorf("after HUP: %+v", res)
	}
	if len(liveWith(marker)) != 1 {
		t.Error("HUP ended a nohup process")
	}
	s.Close()
	noneLeft(t, marker)
}

// Without session jobs, wait is the shell's own: it waits for the
// background work of functions.
func TestWaitInFunction(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := runWith(t, s, "f() { echo inner & wait; echo done; }; f", kernel.RunOptions{})
	if res.ExitCode != 0 || res.Stdout != "inner\ndone\n" {
		t.Errorf("%+v", res)
	}
	res = runWith(t, s, "wait", kernel.RunOptions{})
	if res.ExitCode != 0 || res.Stderr != "" {
		t.Errorf("wait with nothing: %+v", res)
	}
}

// jobs reports a finished job once, then forgets it.
func TestJobsReportsDoneOnce(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	runWith(t, s, "sh -c 'exit 3' &", kernel.RunOptions{})
	eventually(t, "job finished", func() bool { return len(runWith(t, s, "true", kernel.RunOptions{}).Jobs) == 0 })
	if res := runWith(t, s, "jobs", kernel.RunOptions{}); res.Stdout != "[1]+  Exit 3                  sh -c 'exit 3' &\n" {
		t.Errorf("jobs: %q", res.Stdout)
	}
	if res := runWith(t, s, "jobs", kernel.RunOptions{}); res.Stdout != "" {
		t.Errorf("jobs again: %q", res.Stdout)
	}
}

// jobs and the Result list a job as the script wrote it, not as the
// rewrite that keeps bash's meaning made it (a for (( )) loop is a group
// of shelter's own statements).
func TestJobTextIsTheScripts(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	const loop = "for ((i = 0; i < 2; i++)); do sleep 0.05; done &"
	res, err := s.Run(context.Background(), "for ((i=0;i<2;i++)); do sleep 0.05; done &\njobs", kernel.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Stdout, loop) || strings.Contains(res.Stdout, "SHELTER") || strings.Contains(res.Stdout, "shelter:") {
		t.Errorf("jobs printed %q; want the loop as written: %q", res.Stdout, loop)
	}
	for _, j := range res.Jobs {
		if strings.Contains(j.Command, "SHELTER") {
			t.Errorf("Result.Jobs names the rewritten loop: %q", j.Command)
		}
	}
	if _, err := s.Run(context.Background(), "wait", kernel.RunOptions{}); err != nil {
		t.Fatal(err)
	}
}
