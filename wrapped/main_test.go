package wrapped_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/builtins"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
	"github.com/shelter-sh/shelter/wrapped"
)

// helperEnv switches the test binary into an oracle program: the fixtures
// pin it in their declarations, so only wrapped calls ever see it.
const helperEnv = "WRAPPED_TEST_HELPER"

// helper is the absolute path of the argv oracle, testdata/oracle built
// once for the run: a small program starts in a millisecond, where the
// test binary itself (under -race) takes far longer.
var helper string

func TestMain(m *testing.M) {
	spawn.Init() // confined children start through this binary
	dir, err := os.MkdirTemp("", "wrapped-oracle-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	helper = filepath.Join(dir, "oracle")
	build := exec.Command("go", "build", "-o", helper, "./testdata/oracle")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the oracle:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is the declaration the refusal lines of the spec are written
// against; @HELPER@ and @ROOT@ are replaced by the oracle's path and a
// path_under directory.
const fixture = `
commands:
  git:
    executable: "@HELPER@"
    env: {WRAPPED_TEST_HELPER: argv}
    verbs:
      commit:
        flags:
          message: {alias: [m], type: string, required: true}
          all: {alias: [a]}
      diff:
        flags: {stat: {}}
        positionals: [{name: revision, many: true}]
      log:
        flags:
          max-count: {alias: [n], type: int, about: Limit the number of commits.}
          oneline: {}
          since: {type: string}
        positionals:
          - {name: revision, many: true}
      push:
        positionals:
          - {name: remote, required: true}
          - {name: refspec, required: true}
      status:
        flags:
          untracked-files: {choices: [no, normal, all]}
  probe:
    executable: "@HELPER@"
    env: {WRAPPED_TEST_HELPER: argv}
    lead: [--lead]
    verbs:
      run:
        lead: [--verb-lead]
        flags:
          s: {}
          v: {}
          n: {type: int}
          m: {type: string}
          tag: {type: string, repeatable: true}
          name: {type: string, alias: [N]}
          level: {type: int, style: separate}
          x: {type: string, style: equals}
          -std: {type: string}
          mode: {choices: [fast, slow]}
        positionals:
          - {name: first}
          - {name: rest, many: true}
      fwd:
        flags: {s: {}, keep: {type: string}}
        tail: forward
      dash:
        flags: {s: {}, h: {}}
        positionals: [{name: one}]
        tail: after-dash-dash
      need:
        flags: {n: {type: int}}
        positionals: [{name: files, many: true, required: true}]
      quiet:
        omit_name: true
        lead: [renamed]
      json:
        json: true
  emit:
    executable: "@HELPER@"
    env: {WRAPPED_TEST_HELPER: print}
    verbs:
      out:
        json: true
        positionals: [{name: text}]
  tool:
    executable: "@HELPER@"
    env: {WRAPPED_TEST_HELPER: argv}
    verbs:
      sub: {flags: {x: {}}}
    root:
      flags: {version: {}}
      positionals: [{name: word}]
  reader:
    executable: "@HELPER@"
    env: {WRAPPED_TEST_HELPER: cat}
    verbs:
      pipe: {stdin: pipe}
      closed: {}
  cargo:
    executable: "@HELPER@"
    env: {WRAPPED_TEST_HELPER: argv}
    verbs:
      build: {}
      test: {tail: after-dash-dash}
  python:
    executable: "@HELPER@"
    env: {WRAPPED_TEST_HELPER: argv}
    root:
      positionals:
        - {name: script, path_under: "@ROOT@"}
`

// loadFixture writes the fixture with root as the path_under directory and
// loads it.
func loadFixture(t testing.TB, root string) map[string]*wrapped.Command {
	t.Helper()
	src := strings.NewReplacer("@HELPER@", helper, "@ROOT@", root).Replace(fixture)
	return loadString(t, src)
}

func loadString(t testing.TB, src string) map[string]*wrapped.Command {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds, err := wrapped.LoadFile(path, wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*wrapped.Command{}
	for _, c := range cmds {
		out[c.Name()] = c
	}
	return out
}

// newSession starts a session with the commands registered, in dir.
func newSession(t testing.TB, cfg kernel.Config, dir string, cmds map[string]*wrapped.Command) *kernel.Session {
	t.Helper()
	// The launchers, job control and help, as the CLI registers them.
	cfg.Tools = append(builtins.Launchers(), cfg.Tools...)
	for _, c := range cmds {
		cfg.Tools = append(cfg.Tools, c)
	}
	k, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func run(t testing.TB, s *kernel.Session, script string) kernel.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.Run(ctx, script, kernel.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// argvOf decodes the oracle's output: the argv it received after its name.
func argvOf(t testing.TB, stdout string) []string {
	t.Helper()
	var argv []string
	if err := json.Unmarshal([]byte(stdout), &argv); err != nil {
		t.Fatalf("oracle output %q: %v", stdout, err)
	}
	return argv
}
