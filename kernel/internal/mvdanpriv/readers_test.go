package mvdanpriv

import (
	"context"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// run runs src on r.
func run(t *testing.T, r *interp.Runner, src string) {
	t.Helper()
	if err := r.Run(context.Background(), parse(t, src)); err != nil {
		t.Fatal(err)
	}
}

func parse(t *testing.T, src string) *syntax.File {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// HandlerRunner reads a field mvdan/sh keeps private: a new mvdan/sh
// that moves it must fail here, not quietly fall back.
func TestHandlerRunnerFindsTheRunner(t *testing.T) {
	var got *interp.Runner
	r, err := interp.New(interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
		got = HandlerRunner(interp.HandlerCtx(ctx))
		return args, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, "true")
	if got != r {
		t.Fatalf("HandlerRunner = %p, want the runner %p", got, r)
	}
}

// Xtrace reads an option mvdan/sh keeps private: a new mvdan/sh that
// moves it must fail here, not quietly trace shelter's words again.
func TestXtraceFindsSetX(t *testing.T) {
	r, err := interp.New()
	if err != nil {
		t.Fatal(err)
	}
	x := Xtrace(r)
	if x == nil {
		t.Fatal("Xtrace found no set -x option in interp.Runner")
	}
	if *x {
		t.Fatal("set -x is on in a new runner")
	}
	if err := interp.Params("-x")(r); err != nil {
		t.Fatal(err)
	}
	if !*x {
		t.Fatal("set -x is off after Params(-x)")
	}
	if err := interp.Params("+x")(r); err != nil {
		t.Fatal(err)
	}
	if *x {
		t.Fatal("set -x is on after Params(+x)")
	}
	if Xtrace(nil) != nil {
		t.Fatal("Xtrace(nil) is not nil")
	}
}

// LoopExitPending reads counts mvdan/sh keeps private: a new mvdan/sh
// that moves them must fail here, not quietly run what follows a break.
func TestLoopExitPendingSeesBreakAndContinue(t *testing.T) {
	var seen []bool
	r, err := interp.New(interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
		if args[0] == "probe" {
			seen = append(seen, LoopExitPending(interp.HandlerCtx(ctx)))
			return []string{":"}, nil
		}
		return args, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	// mvdan/sh runs the rest of a group after break and continue: the
	// probes there see them pending, the others not.
	run(t, r, "for i in 1; do probe; { break; probe; }; done; probe; for i in 1; do { continue; probe; }; done; probe")
	if want := []bool{false, true, false, true, false}; !slices.Equal(seen, want) {
		t.Fatalf("probes saw %v, want %v", seen, want)
	}
}

// Alias and ExpandAliases read the alias table and the option that
// `type` needs; a new mvdan/sh that moves them must fail here.
func TestAliasReadsTheTable(t *testing.T) {
	r, err := interp.New()
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, "alias m=more q=\"echo 'hi' \"")
	if ExpandAliases(r) {
		t.Error("ExpandAliases = true before shopt -s expand_aliases")
	}
	run(t, r, "shopt -s expand_aliases")
	if !ExpandAliases(r) {
		t.Error("ExpandAliases = false after shopt -s expand_aliases")
	}
	for name, want := range map[string]string{"m": "more", "q": "echo 'hi' "} {
		if got, ok := Alias(r, name); !ok || got != want {
			t.Errorf("Alias(%s) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := Alias(r, "nope"); ok {
		t.Error("Alias(nope) found an alias")
	}
}

// LocalHere tells a function's own local from its caller's and from a
// global; a new mvdan/sh that lays its overlays out otherwise fails here.
func TestLocalHere(t *testing.T) {
	var got []string
	r, err := interp.New(interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
		if args[0] == "probe" {
			r := HandlerRunner(interp.HandlerCtx(ctx))
			for _, n := range args[1:] {
				if LocalHere(r, n) {
					got = append(got, n)
				}
			}
			return []string{"true"}, nil
		}
		return args, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, "g=1; f() { local own=1 shadow=1; h; probe own shadow g; }; h() { local inner=1; probe own shadow inner g; }; f; probe g")
	if want := []string{"inner", "own", "shadow"}; !slices.Equal(got, want) {
		t.Errorf("LocalHere found %q, want %q", got, want)
	}
}

// Errexit is Option's errexit.
func TestErrexitAsOption(t *testing.T) {
	r, err := interp.New(interp.Params("-e"))
	if err != nil {
		t.Fatal(err)
	}
	if p, q := Errexit(r), Option(r, "errexit"); p == nil || p != q || !*p {
		t.Fatalf("Errexit = %v, Option %v", p, q)
	}
	if Errexit(nil) != nil {
		t.Fatal("Errexit(nil) is not nil")
	}
}
