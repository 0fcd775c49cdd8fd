package mvdanpriv

import (
	"context"
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

const state = `echo "$x ${arr[*]} ${m[k]} $E $(f) $PWD $#"`

// A snapshot and the runner it was taken from go on apart: neither sees
// what the other changes, arrays changed in place included, even while
// both run at once.
func TestSnapshotApart(t *testing.T) {
	var out strings.Builder
	r, err := interp.New(interp.Env(expand.ListEnviron("E=start")), interp.Dir("/"), interp.StdIO(nil, &out, &out))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, `x=1; arr=(a b); declare -A m=([k]=v); f() { echo old; }; set -- p q`)
	snap := Snapshot(r)
	if o := overlayOf(snap); o == nil || isOverlay(o.parent) || o.parent == nil {
		t.Fatalf("the snapshot's variables are not over the runner's start (interp changed?): %+v", o)
	}
	var snapOut strings.Builder
	interp.StdIO(nil, &snapOut, &snapOut)(snap)
	f, err := syntax.NewParser().Parse(strings.NewReader(`x=2; arr+=R; m[k]=r; E=r; f() { echo new; }; cd /tmp; set -- r; `+state), "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { err = r.Run(context.Background(), f) })
	run(t, snap, `arr+=S; `+state)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "2 aR b r r new /tmp 1\n"; got != want {
		t.Errorf("runner: %q, want %q", got, want)
	}
	if got, want := snapOut.String(), "1 aS b v start old / 2\n"; got != want {
		t.Errorf("snapshot: %q, want %q", got, want)
	}
}

// Inside a function the variables lie over the caller's, which the
// function writes to: the snapshot is Subshell's.
func TestSnapshotInFunction(t *testing.T) {
	var snap *interp.Runner
	r, err := interp.New(interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
		if args[0] == "snap" {
			snap = Snapshot(HandlerRunner(interp.HandlerCtx(ctx)))
			return []string{"true"}, nil
		}
		return args, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, `x=1; f() { local y=2; snap; }; f; x=3`)
	if o := overlayOf(snap); o == nil || o.parent != nil {
		t.Fatalf("snapshot in a function: %+v, want Subshell's copy", o)
	}
	var out strings.Builder
	interp.StdIO(nil, &out, &out)(snap)
	run(t, snap, `echo "$x $y"`)
	if out.String() != "1 2\n" {
		t.Fatalf("snapshot in a function: %q", out.String())
	}
}
