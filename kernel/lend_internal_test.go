package kernel

import (
	"context"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

func lendSession(t *testing.T, k *Kernel, opts SessionOptions) *Session {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	s, err := k.NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func runIn(t *testing.T, s *Session, script string, opts RunOptions) Result {
	t.Helper()
	res, err := s.Run(context.Background(), script, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func lendKernel(t *testing.T, p Profile) *Kernel {
	t.Helper()
	cfg, _ := Preset(p)
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Between calls a session holds no table of its variables' copy
// (Runner.Vars), and reads its variables from the runner's own: what
// one call set, the next one's static pass and run see.
func TestIdleSessionHoldsNoVarsTable(t *testing.T) {
	cfg, _ := Preset(ProfileSandbox)
	s := launchSession(t, cfg)
	runIn(t, s, `declare -A m=([k]=v); shopt -s nocasematch; trap 'echo bye' EXIT; PATH=/nowhere:$PATH`, RunOptions{})
	if len(s.runner.Vars) != 0 || s.vars != nil {
		t.Fatalf("an idle session holds %d variables in Runner.Vars", len(s.runner.Vars))
	}
	s.mu.Lock()
	assoc, path, held := s.assocVar("m"), s.pathVar(), s.heldOptions()
	s.mu.Unlock()
	if !assoc || path[:len("/nowhere:")] != "/nowhere:" || held == "" {
		t.Fatalf("between calls: m associative %v, PATH %q, options held %q", assoc, path, held)
	}
	res := runIn(t, s, `[[ ABC == abc ]] && echo "${PATH%%:*}"; echo ${m[k]}`, RunOptions{})
	if res.Stdout != "/nowhere\nv\n" {
		t.Fatalf("the next call printed %q", res.Stdout)
	}
	if vars := s.Vars(); vars["PATH"][:len("/nowhere:")] != "/nowhere:" || vars["TMPDIR"] == "" {
		t.Fatalf("Vars() = %v", vars)
	}
}

// A call that yields runs on with the table it was lent, while the
// session, which goes on from its state before the call, gets another.
func TestYieldedCallKeepsItsVarsTable(t *testing.T) {
	s := launchSession(t, Config{})
	release := make(chan struct{})
	res := runIn(t, s, `x=1; read -r line; y=2`, RunOptions{Yield: 10 * time.Millisecond, Stdin: chanReader{release}})
	if !res.Yielded {
		t.Fatalf("the call did not yield: %+v", res)
	}
	res = runIn(t, s, `echo "x=$x"`, RunOptions{})
	close(release)
	if res.Stdout != "x=\n" {
		t.Fatalf("after the yield the session printed %q, want its state before the call", res.Stdout)
	}
	if len(s.runner.Vars) != 0 || s.vars != nil {
		t.Fatalf("the session holds %d variables in Runner.Vars", len(s.runner.Vars))
	}
}

// chanReader reads end of input once its channel is closed.
type chanReader struct{ c chan struct{} }

func (r chanReader) Read([]byte) (int, error) {
	<-r.c
	return 0, io.EOF
}

// The sessions of a kernel that start alike share their starting
// variables' table; each has its own $TMPDIR, $PWD and, in the sandbox,
// $HOME.
func TestSessionsShareStartEnv(t *testing.T) {
	k := lendKernel(t, ProfileSandbox)
	a, b := lendSession(t, k, SessionOptions{}), lendSession(t, k, SessionOptions{})
	other := lendSession(t, k, SessionOptions{Env: map[string]string{"X": "1"}})
	same := func(x, y *Session) bool {
		return reflect.ValueOf(x.startEnv.shared).UnsafePointer() == reflect.ValueOf(y.startEnv.shared).UnsafePointer()
	}
	if !same(a, b) || same(a, other) {
		t.Fatalf("shared: a and b %v (want true), a and other %v (want false)", same(a, b), same(a, other))
	}
	outs := map[string]bool{}
	for _, s := range []*Session{a, b} {
		res := runIn(t, s, `echo "$TMPDIR $HOME $PWD $LANG"`, RunOptions{})
		if res.ExitCode != 0 || outs[res.Stdout] {
			t.Fatalf("%+v: want a variables of the session's own", res)
		}
		outs[res.Stdout] = true
		for _, name := range []string{"TMPDIR", "HOME", "PWD"} {
			if _, shared := s.startEnv.shared[name]; shared {
				t.Errorf("$%s is in the shared table", name)
			}
		}
	}
	if res := runIn(t, other, `echo "$X"`, RunOptions{}); res.Stdout != "1\n" {
		t.Fatalf("the session given X printed %q", res.Stdout)
	}
}

// A program the session runs gets its starting variables, which the
// runs leave out of their copy into Runner.Vars, and its exports, call
// after call.
func TestProgramsGetStartingVariables(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	s := lendSession(t, lendKernel(t, ProfileHost), SessionOptions{Env: map[string]string{"GIVEN": "g"}})
	runIn(t, s, `X=1; export Y=2`, RunOptions{})
	for range 2 {
		// sh lists what it got from its environment, exported.
		res := runIn(t, s, sh+` -c 'export -p'`, RunOptions{})
		for _, name := range []string{"PATH", "HOME", "TMPDIR", "PWD", "GIVEN", "Y"} {
			if !strings.Contains(res.Stdout, " "+name+"=") {
				t.Errorf("the program's environment lacks %s:\n%s%s", name, res.Stdout, res.Stderr)
			}
		}
		if strings.Contains(res.Stdout, " X=") {
			t.Errorf("the program got X, which the session did not export")
		}
	}
}
