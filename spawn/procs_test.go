package spawn_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// proc is one entry of /proc.
type proc struct {
	pid, pgrp int
	state     byte
	cmdline   string
}

// procs lists the live processes of the machine; zombies are left out,
// since they run nothing and only wait to be reaped.
func procs(t *testing.T) []proc {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var out []proc
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold anything but ')'
		// is found last.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		p := proc{state: f[0][0]}
		p.pid, _ = strconv.Atoi(filepath.Base(filepath.Dir(path)))
		p.pgrp, _ = strconv.Atoi(f[2])
		cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "cmdline"))
		p.cmdline = strings.TrimRight(strings.ReplaceAll(string(cmd), "\x00", " "), " ")
		out = append(out, p)
	}
	return out
}

// waitGone polls /proc until no live process matches, failing after a
// deadline.
func waitGone(t *testing.T, what string, match func(proc) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []proc
		for _, p := range procs(t) {
			if match(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still running: %+v", what, left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// killMatching SIGKILLs every live process that matches: what a test
// left outside every group it could end.
func killMatching(t *testing.T, match func(proc) bool) {
	for _, p := range procs(t) {
		if match(p) {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

func inGroup(pgid int) func(proc) bool {
	return func(p proc) bool { return p.pgrp == pgid }
}

func withArgs(cmdline string) func(proc) bool {
	return func(p proc) bool { return p.cmdline == cmdline }
}

// lockedBuffer is a buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// notifyWriter closes seen the first time its output contains want.
type notifyWriter struct {
	lockedBuffer
	want string
	once sync.Once
	seen chan struct{}
}

func newNotifyWriter(want string) *notifyWriter {
	return &notifyWriter{want: want, seen: make(chan struct{})}
}

func (w *notifyWriter) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if strings.Contains(w.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *notifyWriter) wait(t *testing.T) {
	t.Helper()
	select {
	case <-w.seen:
	case <-time.After(10 * time.Second):
		t.Fatalf("never printed %q; got %q", w.want, w.String())
	}
}

func lookSh(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/bin/sh", "/usr/bin/sh"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("no /bin/sh")
	return ""
}
