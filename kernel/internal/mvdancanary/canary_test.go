package mvdancanary

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// A canary is one bug of mvdan/sh that shelter works around, shown by a
// script that bare mvdan/sh runs otherwise than bash.
type canary struct {
	Name string // the subtest's name
	Bug  string // what mvdan/sh does wrong, as the failure says it
	Gap  string // the section of docs/mvdan.md that describes it
	// Code is the shelter code the bug justifies: "path/to/file.go:
	// identifier", a top-level name or Type.method.
	Code string

	Script string
	Files  map[string]string // written to the working directory first
	Env    []string          // the variables; nil for PATH and HOME

	// Bash is what bash prints for Script, and Mvdan what bare mvdan/sh
	// prints instead: stdout, then "[exit N]" for a status N that is not
	// 0, or how the run ended ("panic: …").
	Bash, Mvdan string

	// run, when set, runs the canary instead of Script: for what a
	// script alone cannot show (how a builtin writes, what a handler
	// sees, a crash that ends the process). Bash is then what a fixed
	// mvdan/sh would give, and is not checked against bash.
	run func(t *testing.T, c canary, dir string) string
}

// canaries are every canary, each table in its turn.
func canaries() []canary {
	return slices.Concat(rewriteCanaries, arrayCanaries, builtinCanaries, crashCanaries, setupCanaries, parseCanaries)
}

// runTimeout bounds a canary's run: none hangs, so only a loaded machine
// comes near it.
const runTimeout = 10 * time.Second

func TestCanaries(t *testing.T) {
	for _, c := range canaries() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if err := judge(c, c.runBare(t)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// judge compares what bare mvdan/sh printed for c with what the canary
// expects: nil while the bug is there, else one line that says what to
// do.
func judge(c canary, got string) error {
	switch got {
	case c.Mvdan:
		return nil
	case c.Bash:
		return fmt.Errorf("mvdan/sh no longer has bug '%s': delete or simplify %s (see docs/mvdan.md#%s)", c.Bug, c.Code, c.Gap)
	}
	return fmt.Errorf("mvdan/sh changed bug '%s': it now prints %q, where it printed %q and bash prints %q: recheck %s (see docs/mvdan.md#%s)",
		c.Bug, got, c.Mvdan, c.Bash, c.Code, c.Gap)
}

// An upgrade that fixes a bug fails its canary with the line that names
// the code to delete.
func TestCanaryFailsWhenFixed(t *testing.T) {
	c := rewriteCanaries[0]
	if err := judge(c, c.Mvdan); err != nil {
		t.Fatalf("judge of mvdan/sh's output: %v", err)
	}
	want := "mvdan/sh no longer has bug 'a for (( )) loop ends after an iteration whose body failed': delete or simplify kernel/internal/rewrite/loop.go: loopRewrite (see docs/mvdan.md#for-loop-status)"
	if err := judge(c, c.Bash); err == nil || err.Error() != want {
		t.Fatalf("judge of a fixed mvdan/sh:\n got %v\nwant %s", err, want)
	}
	if err := judge(c, "something else\n"); err == nil || !strings.Contains(err.Error(), "mvdan/sh changed bug") {
		t.Fatalf("judge of a changed mvdan/sh: %v", err)
	}
}

// The bash column is what bash prints: each script runs in bash too,
// when there is one.
func TestCanariesMatchBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	defaultSignals(t)
	for _, c := range canaries() {
		if c.run != nil {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if got := c.runBash(t); got != c.Bash {
				t.Fatalf("bash prints %q for %q, the table says %q", got, c.Script, c.Bash)
			}
		})
	}
}

// setup makes the canary's working directory, with its files.
func (c canary) setup(t *testing.T) string {
	dir := t.TempDir()
	for name, body := range c.Files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func (c canary) env(dir string) []string {
	if c.Env != nil {
		return c.Env
	}
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
}

// runBare runs c on bare mvdan/sh.
func (c canary) runBare(t *testing.T) string {
	dir := c.setup(t)
	if c.run != nil {
		return c.run(t, c, dir)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(c.Script), "script")
	if err != nil {
		return "parse error: " + err.Error()
	}
	stdout := tempFile(t)
	r, err := interp.New(interp.StdIO(nil, stdout, io.Discard), interp.Env(expand.ListEnviron(c.env(dir)...)), interp.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	st, panicked := runRecovered(ctx, r, f)
	if panicked != "" {
		return panicked
	}
	return outcome(readBack(t, stdout), st)
}

// runRecovered runs f on r: its status, or the line of the panic that
// ended it.
func runRecovered(ctx context.Context, r *interp.Runner, f *syntax.File) (st int, panicked string) {
	defer func() {
		if v := recover(); v != nil {
			panicked = fmt.Sprint("panic: ", v)
		}
	}()
	return status(r.Run(ctx, f)), ""
}

// status is the exit status of a run that ended with err.
func status(err error) int {
	var es interp.ExitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &es):
		return int(es)
	}
	return -1
}

// outcome renders stdout and status as the table's columns have them.
func outcome(stdout string, status int) string {
	switch status {
	case 0:
		return stdout
	case -1:
		return stdout + "[error]"
	}
	return stdout + fmt.Sprintf("[exit %d]", status)
}

// runBash runs c's script with bash, as runBare does with mvdan/sh.
func (c canary) runBash(t *testing.T) string {
	dir := c.setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", c.Script)
	cmd.Dir, cmd.Env = dir, c.env(dir)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return outcome(stdout.String(), 0)
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return outcome(stdout.String(), ee.ExitCode())
	}
	t.Fatalf("bash: %v", err)
	return ""
}

// tempFile is a file for a run's stdout: a pipeline's stages write to it
// concurrently, which a buffer would not take.
func tempFile(t *testing.T) *os.File {
	f, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readBack(t *testing.T, f *os.File) string {
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// defaultSignals gives the bash this test starts the default handling of
// the signals a shell may have started the test with ignored (nohup
// ignores SIGHUP, a background job SIGINT and SIGQUIT): bash's trap lists
// a signal ignored at its start, which the table does not expect. A
// signal the test process is notified of is reset to its default in a
// child it starts.
func defaultSignals(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT} {
		if signal.Ignored(sig) {
			ch := make(chan os.Signal, 1)
			signal.Notify(ch, sig)
			t.Cleanup(func() { signal.Stop(ch) })
		}
	}
}
