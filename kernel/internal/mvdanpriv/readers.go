// Package mvdanpriv reads the state mvdan.cc/sh/v3 keeps unexported: the
// runner behind a handler's context ([HandlerRunner]), a runner's shell
// options ([Option], set -x's [Xtrace], expand_aliases' [ExpandAliases]),
// its pending break or continue ([LoopExitPending]), its aliases
// ([Alias]), whether a variable is the running function's own local
// ([LocalHere]), its own variables alone ([Own]), its backgrounds
// ([Backgrounds]) and its ERR trap ([ErrTrap]); it copies a runner's
// state cheaply ([Snapshot]), makes an idle runner let go of its latest
// run's context ([ForgetRunContext]), and tells the copy a run makes of
// its variables into Runner.Vars from other readers of an environment
// ([IsVarsCopy]). It is the only code in shelter that does
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
	"slices"
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
	// them (optionsAt finds where).
	optsField = field{reflect.TypeFor[interp.Runner](), "opts", "an array of bool", boolArray}
	// breaksField and continuesField are an [interp.Runner]'s counts of
	// the loops a pending break or continue still has to leave.
	breaksField    = field{reflect.TypeFor[interp.Runner](), "breakEnclosing", "int", is[int]}
	continuesField = field{reflect.TypeFor[interp.Runner](), "contnEnclosing", "int", is[int]}
	// bgProcsField is an [interp.Runner]'s backgrounds, gN its N-th:
	// each a struct whose first field, done, is closed once it ended.
	bgProcsField = field{reflect.TypeFor[interp.Runner](), "bgProcs", "a slice of structs whose first field is a chan struct{}", doneSlice}
	// errTrapField is the command an [interp.Runner]'s ERR trap runs.
	errTrapField = field{reflect.TypeFor[interp.Runner](), "callbackErr", "string", is[string]}
)

// fields is every field a reader relies on, in the order Check verifies
// them.
var fields = []field{runnerField, optsField, breaksField, continuesField, aliasField, writeEnvField, randField, bgProcsField, errTrapField, ectxField, ecfgField}

// Where the fields lie, found once: the echo of every call reads the
// runner.
var (
	runnerAt, runnerFound       = runnerField.find()
	breaksAt, breaksFound       = breaksField.find()
	continuesAt, continuesFound = continuesField.find()
	bgProcsAt, bgProcsFound     = bgProcsField.find()
	errTrapAt, errTrapFound     = errTrapField.find()
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
func Xtrace(r *interp.Runner) *bool { return Option(r, "xtrace") }

// Option is r's state of the shell option name, one of [OptionNames]:
// the options mvdan/sh implements, which a caller may read and set (a
// glob option set here takes effect at the runner's next set or shopt).
// It is nil for another name, when r is nil or when [Check] fails.
func Option(r *interp.Runner, name string) *bool {
	at, ok := optionsAt()[name]
	if r == nil || !ok {
		return nil
	}
	return (*bool)(unsafe.Add(unsafe.Pointer(r), at))
}

// Errexit is r's set -e option, as Option(r, "errexit") is, without a
// lookup by name: the kernel reads it before every call.
func Errexit(r *interp.Runner) *bool {
	at, ok := errexitAt()
	if r == nil || !ok {
		return nil
	}
	return (*bool)(unsafe.Add(unsafe.Pointer(r), at))
}

var errexitAt = sync.OnceValues(func() (uintptr, bool) {
	at, ok := optionsAt()["errexit"]
	return at, ok
})

// OptionNames are the options mvdan/sh implements: set -o's, then
// shopt's.
var OptionNames = []string{
	"allexport", "errexit", "noexec", "noglob", "nounset", "xtrace", "pipefail",
	"dotglob", "expand_aliases", "extglob", "globstar", "nocaseglob", "nullglob",
}

// optionsAt is where an [interp.Runner] keeps each of [OptionNames]: the
// one element of its options array that turning the option on alone
// changes (and turning it off again restores), found on first use, on
// one new runner. It is empty when one is not found.
var optionsAt = sync.OnceValue(func() map[string]uintptr {
	sf, ok := optsField.in.FieldByName(optsField.name)
	if !ok || !optsField.fits(sf.Type) {
		return nil
	}
	// The directory is set as is: interp.Dir would stat it.
	r, err := interp.New(interp.Env(expand.ListEnviron()), func(r *interp.Runner) error { r.Dir = "/"; return nil })
	if err != nil {
		return nil
	}
	opts := unsafe.Slice((*bool)(unsafe.Add(unsafe.Pointer(r), sf.Offset)), sf.Type.Len())
	base := slices.Clone(opts)
	at := make(map[string]uintptr, len(OptionNames))
	for i, name := range OptionNames {
		on, off := interp.Params("-o", name), interp.Params("+o", name)
		if i >= shellOptions {
			on, off = interp.BashOpts("-s", name), interp.BashOpts("-u", name)
		}
		if on(r) != nil {
			return nil
		}
		found := -1
		for j := range opts {
			if opts[j] != base[j] {
				if found >= 0 {
					return nil
				}
				found = j
			}
		}
		if found < 0 || off(r) != nil || !slices.Equal(opts, base) {
			return nil
		}
		at[name] = sf.Offset + uintptr(found)*sf.Type.Elem().Size()
	}
	return at
})

// shellOptions is how many of [OptionNames] are set -o's.
const shellOptions = 7

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

// ErrTrap is the command r's ERR trap runs, empty when it has none; ok
// is false when r is nil or [Check] fails.
func ErrTrap(r *interp.Runner) (command string, ok bool) {
	if r == nil || !errTrapFound {
		return "", false
	}
	return *(*string)(unsafe.Add(unsafe.Pointer(r), errTrapAt)), true
}
