package mvdanpriv

import (
	"context"
	"reflect"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// IsVarsCopy reports whether yield, given to an environment's Each, is
// the function with which [interp.Runner.Run], as it returns, copies
// every variable into Runner.Vars: a table interp itself never reads
// (its own copy of the variables, of mvdan/sh's version 2, to be removed
// in version 4). An environment that leaves its variables out of that
// copy saves each run the copying, and each runner the table's room.
// It is false for any other function, and when interp was not found to
// copy so.
//
// The function is recognised by its code, found once: that of the one
// Each call a run of nothing makes on a new runner's environment, which
// must have put what it was given into Runner.Vars. Built with inlining
// (Go's default) the code is Run's own; without it (-gcflags=-l, as a
// debugger builds) it is maps.Insert's, which every maps.Insert of an
// environment's Each into a map[string]expand.Variable shares: shelter
// collects variables otherwise (maps.Collect).
func IsVarsCopy(yield func(string, expand.Variable) bool) bool {
	pc := varsCopyPC()
	return pc != 0 && reflect.ValueOf(yield).Pointer() == pc
}

var varsCopyPC = sync.OnceValue(func() uintptr {
	var pcs []uintptr
	env := eachProbe{seen: func(yield func(string, expand.Variable) bool) {
		pcs = append(pcs, reflect.ValueOf(yield).Pointer())
		yield(probeVar, expand.Variable{Set: true, Kind: expand.String, Str: "1"})
	}}
	// A directory of its own: without one, New asks for the process's,
	// which may have been removed.
	r, err := interp.New(interp.Env(env), interp.Dir("/"))
	if err != nil {
		return 0
	}
	if err := r.Run(context.Background(), &syntax.File{}); err != nil || len(pcs) != 1 || r.Vars[probeVar].Str != "1" {
		return 0
	}
	return pcs[0]
})

// probeVar is the variable eachProbe gives.
const probeVar = "SHELTER_PROBE"

// eachProbe is an environment that tells of each Each, and gives it
// probeVar.
type eachProbe struct {
	seen func(yield func(string, expand.Variable) bool)
}

func (eachProbe) Get(string) expand.Variable { return expand.Variable{} }

func (e eachProbe) Each(yield func(string, expand.Variable) bool) { e.seen(yield) }
