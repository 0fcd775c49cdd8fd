package bench

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// newSession is a session of a kernel of profile p with no tools, in a
// directory of its own; it is closed, and its spill files removed, when
// the test ends.
func newSession(tb testing.TB, p kernel.Profile) *kernel.Session {
	tb.Helper()
	cfg, _ := kernel.Preset(p)
	k, err := kernel.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: tb.TempDir(), DiscardSpills: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// floor is the bare mvdan/sh side of a comparison: a runner and the
// buffers it writes to.
type floor struct {
	r           *floorRunner
	out, errOut bytes.Buffer
}

func newFloorBuffers(tb testing.TB) *floor {
	tb.Helper()
	return newFloorWith(tb, newFloor)
}

// newFloorWith is newFloorBuffers with a runner made by mk.
func newFloorWith(tb testing.TB, mk func(stdout, stderr io.Writer) (*floorRunner, error)) *floor {
	tb.Helper()
	f := &floor{}
	r, err := mk(&f.out, &f.errOut)
	if err != nil {
		tb.Fatal(err)
	}
	f.r = r
	return f
}

// run runs script on the floor's runner and returns what it printed on
// stdout and its status.
func (f *floor) run(tb testing.TB, script string) (string, int) {
	tb.Helper()
	f.out.Reset()
	f.errOut.Reset()
	status, err := f.r.run(context.Background(), script)
	if err != nil {
		tb.Fatalf("bare mvdan/sh: %v", err)
	}
	return f.out.String(), status
}

// shelter runs script on s and returns its stdout and status.
func shelter(tb testing.TB, s *kernel.Session, script string) (string, int) {
	tb.Helper()
	res, err := s.Run(context.Background(), script, kernel.RunOptions{})
	if err != nil {
		tb.Fatalf("shelter: %v", err)
	}
	if res.Rejected {
		tb.Fatalf("shelter refused the script: %s", res.Stderr)
	}
	return res.Stdout, res.ExitCode
}

func lookBash(tb testing.TB) string {
	tb.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		tb.Skip("no bash on this machine")
	}
	return bash
}

// bash runs `bash -c script` and returns its stdout and status.
func bash(tb testing.TB, path, script string) (string, int) {
	tb.Helper()
	var out bytes.Buffer
	cmd := exec.Command(path, "-c", script)
	cmd.Stdout = &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		tb.Fatalf("bash: %v", err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// binaries are the programs the cold-start case starts.
type binaries struct {
	shelter    string // the CLI
	kernelOnly string // bench/testdata/kernelonly
}

// buildBinaries builds the CLI and the kernel-only program into a
// temporary directory; it skips when there is no go command.
func buildBinaries(tb testing.TB) binaries {
	tb.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("no go command to build the CLI with")
	}
	dir := tb.TempDir()
	bins := binaries{shelter: filepath.Join(dir, "shelter"), kernelOnly: filepath.Join(dir, "kernelonly")}
	for _, b := range []struct{ out, pkg string }{
		{bins.shelter, "./cmd/shelter"},
		{bins.kernelOnly, "./bench/testdata/kernelonly"},
	} {
		cmd := exec.Command(gobin, "build", "-o", b.out, b.pkg)
		cmd.Dir = ".." // the module's root
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return bins
}

// start runs argv once with no input and returns what it printed, its
// wall time and its CPU time (user and system, from its rusage).
func start(tb testing.TB, argv ...string) (out string, wall, cpu time.Duration) {
	tb.Helper()
	var buf bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = &buf
	begin := time.Now()
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%v: %v", argv, err)
	}
	wall = time.Since(begin)
	return buf.String(), wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// openFDs counts this process's open file descriptors; -1 where
// /proc/self/fd does not list them.
func openFDs() int {
	if runtime.GOOS != "linux" {
		return -1
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
