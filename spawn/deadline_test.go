package spawn_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/spawn"
)

// A deadline's own signal and grace (timeout -s CONT -k 1d 0) cannot keep
// a child alive past the call's end: cancel still sends SIGTERM, then
// SIGKILL after Cmd.Grace.
func TestRunDeadlineDoesNotOutliveTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &spawn.Cmd{Path: "/bin/sleep", Args: []string{"sleep", "1000.123"}, Dir: "/",
		Deadline: time.Now(), DeadlineSignal: syscall.SIGCONT, DeadlineGrace: 24 * time.Hour,
		Grace: 200 * time.Millisecond}
	var pid int
	c.Started = func(p int) {
		pid = p
		cancel()
	}
	start := time.Now()
	status, err := spawn.Run(ctx, c)
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("Run took %s after cancel", d)
	}
	if !errors.Is(err, context.Canceled) || status != 128+int(syscall.SIGTERM) {
		t.Errorf("Run = %d, %v; want %d, %v", status, err, 128+int(syscall.SIGTERM), context.Canceled)
	}
	waitGone(t, "child", func(p proc) bool { return p.pid == pid })
}

func TestRunDeadline(t *testing.T) {
	tests := []struct {
		name   string
		script string
		sig    syscall.Signal
		grace  time.Duration
		status int
	}{
		{"default signal", "sleep 100", 0, 0, 143},
		{"own signal", "sleep 100", syscall.SIGINT, 0, 130},
		// SIGWINCH does nothing to sleep: SIGKILL follows after the grace.
		{"no effect, then killed", "sleep 100", syscall.SIGWINCH, 100 * time.Millisecond, 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := shCmd(t, "exec "+tt.script)
			c.Deadline, c.DeadlineSignal, c.DeadlineGrace = time.Now(), tt.sig, tt.grace
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			status, err := spawn.Run(ctx, c)
			if status != tt.status || !errors.Is(err, spawn.ErrDeadline) {
				t.Errorf("Run = %d, %v; want %d, %v", status, err, tt.status, spawn.ErrDeadline)
			}
		})
	}
}

// A child that ends before its deadline ends as usual.
func TestRunDeadlineNotReached(t *testing.T) {
	c := &spawn.Cmd{Path: "/bin/true", Args: []string{"true"}, Dir: "/", Deadline: time.Now().Add(time.Hour)}
	if status, err := spawn.Run(context.Background(), c); status != 0 || err != nil {
		t.Errorf("Run = %d, %v; want 0, nil", status, err)
	}
}
