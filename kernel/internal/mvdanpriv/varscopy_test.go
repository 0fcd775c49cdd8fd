package mvdanpriv

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// quietEnviron is an environment that leaves its variables out of the
// copy a run makes into Runner.Vars, as the kernel's does.
type quietEnviron struct{ expand.Environ }

func (q quietEnviron) Each(yield func(string, expand.Variable) bool) {
	if IsVarsCopy(yield) {
		return
	}
	q.Environ.Each(yield)
}

// A run copies an environment's variables into Runner.Vars with a
// function IsVarsCopy knows, and with it alone: the script still reads
// and lists what the environment holds, and its children get it.
func TestIsVarsCopy(t *testing.T) {
	if varsCopyPC() == 0 {
		t.Fatal("the run's copy into Runner.Vars was not found")
	}
	var out strings.Builder
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Env(quietEnviron{expand.ListEnviron("FROM_ENV=1", "PATH="+os.Getenv("PATH"))}))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, `OWN=2; echo "$FROM_ENV $OWN"; declare -p FROM_ENV; env | grep FROM_ENV`)
	if got, want := out.String(), "1 2\ndeclare -x FROM_ENV=\"1\"\nFROM_ENV=1\n"; got != want {
		t.Fatalf("the script printed %q, want %q", got, want)
	}
	if _, ok := r.Vars["FROM_ENV"]; ok {
		t.Error("Runner.Vars holds FROM_ENV, which the environment left out of the copy")
	}
	if r.Vars["OWN"].Str != "2" {
		t.Errorf("Runner.Vars[OWN] = %+v, want the runner's own variable copied", r.Vars["OWN"])
	}
	if IsVarsCopy(func(string, expand.Variable) bool { return true }) {
		t.Error("IsVarsCopy took another function for the copy")
	}
}

// Own reads the runner's own variables alone: what the environment
// under them holds is not theirs, and an unset hides it.
func TestOwn(t *testing.T) {
	r, err := interp.New(interp.Env(expand.ListEnviron("FROM_ENV=1", "GONE=1")))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, `OWN=2; unset GONE`)
	for name, want := range map[string]bool{"OWN": true, "GONE": false, "FROM_ENV": false} {
		vr, ok := Own(r, name)
		if !ok {
			t.Fatal("Own cannot read the runner's variables")
		}
		if vr.IsSet() != want {
			t.Errorf("Own(%s) = %+v, want set %v", name, vr, want)
		}
	}
	if vr := Scope(r).Get("FROM_ENV"); !vr.IsSet() {
		t.Errorf("the runner reads FROM_ENV as %+v, want the environment's", vr)
	}
}

type ctxKey struct{}

// After ForgetRunContext a runner holds nothing of its latest run's
// context, and runs again as before.
func TestForgetRunContext(t *testing.T) {
	var out strings.Builder
	r, err := interp.New(interp.StdIO(nil, &out, &out))
	if err != nil {
		t.Fatal(err)
	}
	held := new([64]byte)
	collected := make(chan struct{})
	runtime.AddCleanup(held, func(struct{}) { close(collected) }, struct{}{})
	ctx := context.WithValue(context.Background(), ctxKey{}, held)
	held = nil
	f := parse(t, `x=$(echo sub)`)
	if err := r.Run(ctx, f); err != nil {
		t.Fatal(err)
	}
	ctx = nil
	if !ForgetRunContext(r) {
		t.Fatal("ForgetRunContext found no field")
	}
	deadline := time.After(30 * time.Second)
	for done := false; !done; {
		runtime.GC()
		select {
		case <-collected:
			done = true
		case <-deadline:
			t.Fatal("the run's context is still held")
		default:
			runtime.Gosched()
		}
	}
	r.Subshell()
	if err := interp.BashOpts("-s", "globstar")(r); err != nil {
		t.Fatal(err)
	}
	run(t, r, `echo "$x $(echo again)"`)
	if got := out.String(); got != "sub again\n" {
		t.Fatalf("output %q after ForgetRunContext", got)
	}
}
