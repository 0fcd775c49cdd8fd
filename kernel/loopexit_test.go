package kernel

import (
	"context"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// loopExitPending reads counts mvdan/sh keeps private: a new mvdan/sh
// that moves them must fail here, not quietly run what follows a break.
func TestLoopExitPendingSeesBreakAndContinue(t *testing.T) {
	if !loopExitFields.ok {
		t.Fatal("no breakEnclosing and contnEnclosing ints in interp.Runner")
	}
	var seen []bool
	r, err := interp.New(interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
		if args[0] == "probe" {
			seen = append(seen, loopExitPending(interp.HandlerCtx(ctx)))
			return []string{":"}, nil
		}
		return args, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	// mvdan/sh runs the rest of a group after break and continue: the
	// probes there see them pending, the others not.
	src := "for i in 1; do probe; { break; probe; }; done; probe; for i in 1; do { continue; probe; }; done; probe"
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true, false, true, false}; !slices.Equal(seen, want) {
		t.Fatalf("probes saw %v, want %v", seen, want)
	}
}
