package kernel

import (
	"bytes"
	"context"
	"reflect"
	"unsafe"

	"mvdan.cc/sh/v3/interp"
)

// shelter's own words stay out of `set -x`'s trace. Much of what shelter
// does for bash's behaviour runs as shell code on the runner: the evals
// the replaced builtins hand back (read's assignments, return's status),
// the commands the rewrites add (a job's start, a loop's end), the EXIT
// trap's bookkeeping. mvdan/sh traces them all as the script's own. So
//
//   - an eval of shelter's source runs with the trace off (quietEval);
//   - what shelter runs on the runner itself does too (quietly);
//   - the line of an internal command, which the interpreter writes
//     before the call handler sees the command, is dropped by the call's
//     streams (internalTrace).

// xtraceOf is r's set -x option, which mvdan/sh keeps in an unexported
// array of options; nil if a later mvdan/sh lays the runner out otherwise
// (the unit tests fail then), and the trace keeps shelter's words.
func xtraceOf(r *interp.Runner) *bool {
	if r == nil || !xtraceField.ok {
		return nil
	}
	return (*bool)(unsafe.Add(unsafe.Pointer(r), xtraceField.offset))
}

// xtraceField is where an [interp.Runner] keeps set -x: the one option of
// its options array that Params("-x") turns on, found once.
var xtraceField = func() (f struct {
	offset uintptr
	ok     bool
}) {
	sf, ok := reflect.TypeFor[interp.Runner]().FieldByName("opts")
	if !ok || sf.Type.Kind() != reflect.Array || sf.Type.Elem().Kind() != reflect.Bool {
		return f
	}
	off, err1 := interp.New()
	on, err2 := interp.New(interp.Params("-x"))
	if err1 != nil || err2 != nil {
		return f
	}
	a, b := reflect.ValueOf(off).Elem().FieldByIndex(sf.Index), reflect.ValueOf(on).Elem().FieldByIndex(sf.Index)
	found := -1
	for i := range a.Len() {
		if a.Index(i).Bool() != b.Index(i).Bool() {
			if found >= 0 {
				return f
			}
			found = i
		}
	}
	if found < 0 {
		return f
	}
	f.offset, f.ok = sf.Offset+uintptr(found)*sf.Type.Elem().Size(), true
	return f
}()

// quietEval is the argv that evaluates src, shelter's own source, in the
// caller's scope: an eval, or under set -x the internal quiet command,
// which evaluates it with the trace off (quietEvalCall).
func quietEval(hc interp.HandlerContext, src string) []string {
	if x := xtraceOf(handlerRunner(hc)); x != nil && *x {
		return []string{internalPrefix + "quiet", src}
	}
	return []string{"eval", src}
}

// quietEvalCall runs the internal quiet command, from the exec handler:
// eval of args[1] by the runner of the command, with its trace off.
func quietEvalCall(ctx context.Context, hc interp.HandlerContext, args []string) error {
	x := xtraceOf(handlerRunner(hc))
	if x == nil || !*x {
		return hc.Builtin(ctx, append([]string{"eval"}, args[1:]...))
	}
	*x = false
	defer func() { *x = true }()
	return hc.Builtin(ctx, append([]string{"eval"}, args[1:]...))
}

// quietly runs f, which runs shelter's own statements on r, with r's
// trace off.
func quietly(r *interp.Runner, f func()) {
	if x := xtraceOf(r); x != nil && *x {
		*x = false
		defer func() { *x = true }()
	}
	f()
}

// internalTrace reports whether p is the trace of an internal command,
// which the interpreter writes in one piece: "+ " and a word of shelter's
// own, which starts with a NUL (internalPrefix) or a SOH (statusWord and
// its kin, which eval's source can name).
func internalTrace(p []byte) bool {
	return len(p) > 3 && p[0] == '+' && p[1] == ' ' && (p[2] == 0 || p[2] == 1) && bytes.HasPrefix(p[3:], internalName)
}

var internalName = []byte("shelter:")
