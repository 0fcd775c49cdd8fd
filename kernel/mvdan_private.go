package kernel

import (
	"reflect"
	"sync"
	"unsafe"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// What shelter reads and writes of mvdan/sh's unexported state, all in
// one place: a newer mvdan/sh that lays these out otherwise makes each
// finder report nothing found, shelter falls back to mvdan/sh's own
// behaviour there, and the unit tests that hold each finder to the
// interpreter fail (TestHandlerRunnerFindsTheRunner,
// TestXtraceOfFindsSetX, TestLoopExitPendingSeesBreakAndContinue).

// handlerRunner is the shell or subshell that runs hc's command: its Funcs
// are the functions that command sees, its options and loop counts are
// that command's. mvdan/sh keeps the runner in an unexported field of
// [interp.HandlerContext]; nil if it is not found.
func handlerRunner(hc interp.HandlerContext) *interp.Runner {
	if !runnerField.ok {
		return nil
	}
	return *(**interp.Runner)(unsafe.Add(unsafe.Pointer(&hc), runnerField.offset))
}

// runnerField is where [interp.HandlerContext] keeps its runner, found
// once: the echo of every call reads it.
var runnerField = func() (f struct {
	offset uintptr
	ok     bool
}) {
	sf, ok := reflect.TypeFor[interp.HandlerContext]().FieldByName("runner")
	f.offset, f.ok = sf.Offset, ok && sf.Type == reflect.TypeFor[*interp.Runner]()
	return f
}()

// xtraceOf is r's set -x option, which mvdan/sh keeps in an unexported
// array of options; nil if it is not found (the trace then keeps
// shelter's words).
func xtraceOf(r *interp.Runner) *bool {
	f := xtraceField()
	if r == nil || !f.ok {
		return nil
	}
	return (*bool)(unsafe.Add(unsafe.Pointer(r), f.offset))
}

// xtraceField is where an [interp.Runner] keeps set -x: the one option of
// its options array that Params("-x") turns on, found on first use.
var xtraceField = sync.OnceValue(func() (f struct {
	offset uintptr
	ok     bool
}) {
	sf, ok := reflect.TypeFor[interp.Runner]().FieldByName("opts")
	if !ok || sf.Type.Kind() != reflect.Array || sf.Type.Elem().Kind() != reflect.Bool {
		return f
	}
	env, dir := interp.Env(expand.ListEnviron()), interp.Dir("/")
	off, err1 := interp.New(env, dir)
	on, err2 := interp.New(env, dir, interp.Params("-x"))
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
})

// loopExitPending reports whether the runner of hc's command has a break
// or continue to finish. Without the counts nothing is pending, and what
// follows a break runs, as mvdan/sh runs it.
func loopExitPending(hc interp.HandlerContext) bool {
	r := handlerRunner(hc)
	if r == nil || !loopExitFields.ok {
		return false
	}
	p := unsafe.Pointer(r)
	return *(*int)(unsafe.Add(p, loopExitFields.breaks)) > 0 || *(*int)(unsafe.Add(p, loopExitFields.continues)) > 0
}

// loopExitFields is where an [interp.Runner] keeps its pending break and
// continue counts, found once.
var loopExitFields = func() (f struct {
	breaks, continues uintptr
	ok                bool
}) {
	t := reflect.TypeFor[interp.Runner]()
	b, okB := t.FieldByName("breakEnclosing")
	c, okC := t.FieldByName("contnEnclosing")
	intType := reflect.TypeFor[int]()
	f.breaks, f.continues = b.Offset, c.Offset
	f.ok = okB && okC && b.Type == intType && c.Type == intType
	return f
}()
