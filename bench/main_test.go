package bench

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if scratch.dir != "" {
		os.RemoveAll(scratch.dir)
	}
	os.Exit(code)
}

// scratch is the directory the process's benchmarks share: the big
// inputs and the built programs, each made once, when first asked for,
// and removed with the directory when the tests end.
var scratch struct {
	sync.Mutex
	dir  string
	made map[string]bool
}

// made returns the path of name in the scratch directory, calling create
// with it the first time name is asked for, its directory made. A create
// that fails the test is called again by the next test that asks.
func made(tb testing.TB, name string, create func(path string)) string {
	tb.Helper()
	scratch.Lock()
	defer scratch.Unlock()
	if scratch.dir == "" {
		dir, err := os.MkdirTemp("", "shelter-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		scratch.dir, scratch.made = dir, map[string]bool{}
	}
	path := filepath.Join(scratch.dir, name)
	if !scratch.made[name] {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		create(path)
		scratch.made[name] = true
	}
	return path
}

// builtProgram is the program of pkg, a path from the module's root,
// built once a process with the go command's own cgo setting.
func builtProgram(tb testing.TB, pkg string) string {
	tb.Helper()
	return made(tb, filepath.Join("bin", filepath.Base(pkg)), func(path string) {
		goBuild(tb, "", path, pkg)
	})
}
