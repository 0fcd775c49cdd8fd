package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// newKernel is a kernel of profile p with no tools.
func newKernel(tb testing.TB, p kernel.Profile) *kernel.Kernel {
	tb.Helper()
	cfg, _ := kernel.Preset(p)
	k, err := kernel.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// newSession is a session of a kernel of profile p with no tools, in a
// directory of its own; it is closed, and its spill files removed, when
// the test ends.
func newSession(tb testing.TB, p kernel.Profile) *kernel.Session {
	tb.Helper()
	s, err := newKernel(tb, p).NewSession(kernel.SessionOptions{Dir: tb.TempDir(), DiscardSpills: true})
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
	deps       string // bench/testdata/deps
}

// buildBinaries builds the CLI, the kernel-only program and the deps
// program into a temporary directory with the go command's own cgo
// setting, so that a test links the packages `go test ./...` compiled
// rather than compile the CLI's dependencies a second time; it skips when
// there is no go command. A benchmark builds them with
// buildBinariesWith(b, "0").
func buildBinaries(tb testing.TB) binaries { return buildBinariesWith(tb, "") }

// buildBinariesWith is buildBinaries with CGO_ENABLED=cgo: "0" builds
// them as a machine with Go and no C compiler does (see goBuild), ""
// leaves the go command's default and builds each once a process
// (builtProgram).
func buildBinariesWith(tb testing.TB, cgo string) binaries {
	tb.Helper()
	if cgo == "" {
		return binaries{
			shelter:    builtProgram(tb, "./cmd/shelter"),
			kernelOnly: builtProgram(tb, "./bench/testdata/kernelonly"),
			deps:       builtProgram(tb, "./bench/testdata/deps"),
		}
	}
	dir := tb.TempDir()
	bins := binaries{
		shelter:    filepath.Join(dir, "shelter"),
		kernelOnly: filepath.Join(dir, "kernelonly"),
		deps:       filepath.Join(dir, "deps"),
	}
	goBuild(tb, cgo, bins.shelter, "./cmd/shelter")
	goBuild(tb, cgo, bins.kernelOnly, "./bench/testdata/kernelonly")
	goBuild(tb, cgo, bins.deps, "./bench/testdata/deps")
	return bins
}

// buildCgoCLI builds the CLI with cgo on, as `go build` does on a machine
// with a C compiler; it returns "" when there is no C compiler.
func buildCgoCLI(tb testing.TB) string {
	tb.Helper()
	cc, err := exec.Command(goCommand(tb), "env", "CC").Output()
	if err != nil {
		tb.Fatalf("go env CC: %v", err)
	}
	if _, err := exec.LookPath(strings.TrimSpace(string(cc))); err != nil {
		return ""
	}
	out := filepath.Join(tb.TempDir(), "shelter-cgo")
	goBuild(tb, "1", out, "./cmd/shelter")
	return out
}

// goBuild builds pkg, a path from the module's root, into out, with
// CGO_ENABLED=cgo unless cgo is "". With cgo the binary is linked
// dynamically against the C library (os/user and net use it), which
// costs about 1.5 ms of CPU at every start (docs/performance.md).
func goBuild(tb testing.TB, cgo, out, pkg string) {
	tb.Helper()
	cmd := exec.Command(goCommand(tb), "build", "-o", out, pkg)
	cmd.Dir = ".." // the module's root
	if cgo != "" {
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// goCommand is the go command's path; it skips when there is none.
func goCommand(tb testing.TB) string {
	tb.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("no go command to build the CLI with")
	}
	return gobin
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

// TestDepsProgramLinksTheCLIsDependencies checks that the deps program
// imports exactly what shelter's packages linked into the CLI import from
// outside the standard library and outside shelter, so that the floor it
// measures moves with the CLI's dependencies.
func TestDepsProgramLinksTheCLIsDependencies(t *testing.T) {
	cmd := exec.Command(goCommand(t), "list", "-deps", "-json=ImportPath,Standard,Imports,Module", "./cmd/shelter")
	cmd.Dir = ".." // the module's root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath string
		Standard   bool
		Imports    []string
		Module     *struct{ Main bool }
	}
	pkgs := map[string]pkg{}
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	shelters := func(p pkg) bool { return p.Module != nil && p.Module.Main }
	var want []string
	for _, p := range pkgs {
		if !shelters(p) {
			continue
		}
		for _, path := range p.Imports {
			if q := pkgs[path]; !q.Standard && !shelters(q) && !slices.Contains(want, path) {
				want = append(want, path)
			}
		}
	}
	slices.Sort(want)

	f, err := parser.ParseFile(token.NewFileSet(), "testdata/deps/main.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		got = append(got, path)
	}
	for _, path := range want {
		if !slices.Contains(got, path) {
			t.Errorf("bench/testdata/deps does not import %s, which the CLI links", path)
		}
	}
	for _, path := range got {
		if !slices.Contains(want, path) {
			t.Errorf("bench/testdata/deps imports %s, which no package of the CLI imports", path)
		}
	}
}
