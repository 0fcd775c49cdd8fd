// Package mvdanpriv reads the state mvdan.cc/sh/v3 keeps unexported: the
// runner behind a handler's context ([HandlerRunner]), a runner's set -x
// option ([Xtrace]), its pending break or continue
// ([LoopExitPending]), its aliases ([Alias]) and expand_aliases
// ([ExpandAliases]), whether a variable is the running function's
// own local ([LocalHere]), and its backgrounds ([Backgrounds]). It is
// the only code in shelter that does
// (docs/mvdan.md, "Private state").
//
// Each reader relies on a field of the interpreter's structs, as
// [CheckedVersion] lays them out. [Check] verifies every one of them
// against the mvdan.cc/sh/v3 the program was built with, and kernel.New
// refuses to build a kernel when one is missing: a newer mvdan/sh fails
// loudly, once, rather than letting shelter run scripts otherwise.
package mvdanpriv

import (
	"reflect"
	"sync"
	"unsafe"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// The fields the readers rely on; Check verifies each.
var (
	// runnerField is where an [interp.HandlerContext] keeps the shell
	// or subshell that runs its command.
	runnerField = field{reflect.TypeFor[interp.HandlerContext](), "runner", "*interp.Runner", is[*interp.Runner]}
	// optsField is an [interp.Runner]'s array of options, set -x among
	// them (xtraceAt finds which).
	optsField = field{reflect.TypeFor[interp.Runner](), "opts", "an array of bool", boolArray}
	// breaksField and continuesField are an [interp.Runner]'s counts of
	// the loops a pending break or continue still has to leave.
	breaksField    = field{reflect.TypeFor[interp.Runner](), "breakEnclosing", "int", is[int]}
	continuesField = field{reflect.TypeFor[interp.Runner](), "contnEnclosing", "int", is[int]}
	// bgProcsField is an [interp.Runner]'s backgrounds, gN its N-th:
	// each a struct whose first field, done, is closed once it ended.
	bgProcsField = field{reflect.TypeFor[interp.Runner](), "bgProcs", "a slice of structs whose first field is a chan struct{}", doneSlice}
)

// fields is every field a reader relies on, in the order Check verifies
// them.
var fields = []field{runnerField, optsField, breaksField, continuesField, aliasField, writeEnvField, bgProcsField}

// Where the fields lie, found once: the echo of every call reads the
// runner.
var (
	runnerAt, runnerFound       = runnerField.find()
	breaksAt, breaksFound       = breaksField.find()
	continuesAt, continuesFound = continuesField.find()
	bgProcsAt, bgProcsFound     = bgProcsField.find()
)

// HandlerRunner is the shell or subshell that runs hc's command: its
// Funcs are the functions that command sees, its options and loop counts
// are that command's. It is nil when [Check] fails.
func HandlerRunner(hc interp.HandlerContext) *interp.Runner {
	if !runnerFound {
		return nil
	}
	return *(**interp.Runner)(unsafe.Add(unsafe.Pointer(&hc), runnerAt))
}

// Xtrace is r's set -x option, which a caller may also turn off and on
// again. It is nil when r is nil or [Check] fails.
func Xtrace(r *interp.Runner) *bool {
	at, ok := xtraceAt()
	if r == nil || !ok {
		return nil
	}
	return (*bool)(unsafe.Add(unsafe.Pointer(r), at))
}

// xtraceAt is where an [interp.Runner] keeps set -x: the one option of
// its options array that Params("-x") turns on, found on first use.
var xtraceAt = sync.OnceValues(func() (uintptr, bool) {
	sf, ok := optsField.in.FieldByName(optsField.name)
	if !ok || !optsField.fits(sf.Type) {
		return 0, false
	}
	env, dir := interp.Env(expand.ListEnviron()), interp.Dir("/")
	off, err1 := interp.New(env, dir)
	on, err2 := interp.New(env, dir, interp.Params("-x"))
	if err1 != nil || err2 != nil {
		return 0, false
	}
	a, b := reflect.ValueOf(off).Elem().FieldByIndex(sf.Index), reflect.ValueOf(on).Elem().FieldByIndex(sf.Index)
	found := -1
	for i := range a.Len() {
		if a.Index(i).Bool() != b.Index(i).Bool() {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	if found < 0 {
		return 0, false
	}
	return sf.Offset + uintptr(found)*sf.Type.Elem().Size(), true
})

// LoopExitPending reports whether the runner of hc's command has a break
// or continue to finish: mvdan/sh runs the rest of a list nested in a
// loop's body after one (docs/mvdan.md, "Break in nested list"). It is
// false when [Check] fails.
func LoopExitPending(hc interp.HandlerContext) bool {
	r := HandlerRunner(hc)
	if r == nil || !breaksFound || !continuesFound {
		return false
	}
	p := unsafe.Pointer(r)
	return *(*int)(unsafe.Add(p, breaksAt)) > 0 || *(*int)(unsafe.Add(p, continuesAt)) > 0
}

// Backgrounds are r's backgrounds, its `cmd &` and its process
// substitutions, in the order it started them (gN is the N-th): each a
// channel closed once that background ended. It is nil when r is nil or
// [Check] fails. r must not run meanwhile: a caller is r's handler, or
// r's run has returned.
func Backgrounds(r *interp.Runner) []<-chan struct{} {
	if r == nil || !bgProcsFound {
		return nil
	}
	sf, _ := bgProcsField.in.FieldByName(bgProcsField.name)
	procs := reflect.NewAt(sf.Type, unsafe.Add(unsafe.Pointer(r), bgProcsAt)).Elem()
	out := make([]<-chan struct{}, procs.Len())
	for i := range out {
		out[i] = *(*chan struct{})(unsafe.Pointer(procs.Index(i).Field(0).UnsafeAddr()))
	}
	return out
}
