package mvdanpriv

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// Scope is a function's own scope while it runs: a variable set there
// with Local is the function's, gone when it returns.
func TestScopeIsTheFunctions(t *testing.T) {
	var out strings.Builder
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
		if args[0] == "mark" {
			hc := interp.HandlerCtx(ctx)
			Scope(HandlerRunner(hc)).Set("v", expand.Variable{Set: true, Local: true, Kind: expand.String, Str: "in"})
			return []string{"true"}, nil
		}
		return args, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, `f() { mark; echo "[$v]"; }; f; echo "[$v]"`)
	if got := out.String(); got != "[in]\n[]\n" {
		t.Fatalf("output %q, want the mark inside the function only", got)
	}
}

type constSource uint64

func (c constSource) Uint64() uint64 { return uint64(c) }

// SetRandom replaces the generator mvdan/sh's $RANDOM draws from.
func TestSetRandomIsRandoms(t *testing.T) {
	var out strings.Builder
	r, err := interp.New(interp.StdIO(nil, &out, &out))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, `RANDOM=1`)
	if !SetRandom(r, constSource(40000)) {
		t.Fatal("SetRandom found no generator field")
	}
	run(t, r, `echo $RANDOM`)
	if got, want := out.String(), "7232\n"; got != want { // 40000 & 32767
		t.Fatalf("$RANDOM = %q, want %q", got, want)
	}
}

// Forget takes a readonly variable out of the runner's own, leaving what
// the environment it started with holds.
func TestForget(t *testing.T) {
	r, err := interp.New(interp.Env(expand.ListEnviron("A=from-env")))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, "declare -r B=b; A=overlay")
	if !Forget(r, "B") || !Forget(r, "A") {
		t.Fatal("Forget found neither B nor A")
	}
	if Forget(r, "B") || Forget(r, "none") || Forget(nil, "A") {
		t.Fatal("Forget found what is not there")
	}
	var out strings.Builder
	interp.StdIO(nil, &out, &out)(r)
	run(t, r, `echo "${B-unset} $A"; B=free; echo $B`)
	if got := out.String(); got != "unset from-env\nfree\n" {
		t.Fatalf("after Forget: %q", got)
	}
}

// Inherit gives a subshell run in the background, whose variables are a
// copy with no parent, an environment to read through to; another
// runner's overlay keeps its own parent.
func TestInherit(t *testing.T) {
	live := expand.FuncEnviron(func(name string) string {
		if name == "LIVE" {
			return "yes"
		}
		return ""
	})
	var out strings.Builder
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			if args[0] != "inherit" {
				return next(ctx, args)
			}
			hc := interp.HandlerCtx(ctx)
			_, err := fmt.Fprintln(hc.Stdout, Inherit(HandlerRunner(hc), live))
			return err
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, `inherit; echo "[$LIVE]"; { inherit; inherit; echo "[$LIVE]"; } | cat`)
	if got, want := out.String(), "false\n[]\ntrue\nfalse\n[yes]\n"; got != want {
		t.Fatalf("printed %q, want %q", got, want)
	}
}
