package mvdanpriv

import (
	mathrand "math/rand/v2"
	"reflect"
	"unsafe"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// writeEnvField is where an [interp.Runner] keeps its variables: a chain
// of overlays (the type interp calls overlayEnviron), one a function
// call and one a subshell, over the environment it started with.
var writeEnvField = field{reflect.TypeFor[interp.Runner](), "writeEnv", "expand.WriteEnviron", is[expand.WriteEnviron]}

// LocalHere reports whether name is a local variable of the function r
// runs now — made by its own local or declare, not by a caller's. It is
// false outside a function, when r is nil, when [Check] fails or when the
// overlays are not as [CheckedVersion] lays them out.
func LocalHere(r *interp.Runner, name string) bool {
	sf, ok := writeEnvField.in.FieldByName(writeEnvField.name)
	if r == nil || !ok || !writeEnvField.fits(sf.Type) {
		return false
	}
	env := reflect.ValueOf(*(*expand.WriteEnviron)(unsafe.Add(unsafe.Pointer(r), sf.Offset)))
	for env.Kind() == reflect.Pointer && !env.IsNil() {
		o := env.Elem()
		if o.Kind() != reflect.Struct || o.Type().Name() != "overlayEnviron" {
			return false
		}
		values, funcScope, parent := o.FieldByName("values"), o.FieldByName("funcScope"), o.FieldByName("parent")
		if values.Kind() != reflect.Map || values.Type().Key().Kind() != reflect.String ||
			funcScope.Kind() != reflect.Bool || parent.Type() != reflect.TypeFor[expand.Environ]() {
			return false
		}
		m := reflect.NewAt(values.Type(), unsafe.Pointer(values.UnsafeAddr())).Elem()
		if v := m.MapIndex(reflect.ValueOf(name)); v.IsValid() {
			vr := v.FieldByName("Variable")
			if !vr.IsValid() || vr.Type() != reflect.TypeFor[expand.Variable]() {
				return false
			}
			return vr.Interface().(expand.Variable).Local
		}
		if funcScope.Bool() {
			return false
		}
		env = reflect.NewAt(parent.Type(), unsafe.Pointer(parent.UnsafeAddr())).Elem().Elem()
	}
	return false
}

// randField is the generator behind an [interp.Runner]'s $RANDOM, which
// an assignment to RANDOM seeds.
var randField = field{reflect.TypeFor[interp.Runner](), "rand", "*rand.Rand", is[*mathrand.Rand]}

var (
	writeEnvAt, writeEnvFound = writeEnvField.find()
	randAt, randFound         = randField.find()
)

// Scope is the innermost scope of r: while a function runs, the
// function's own, where a variable set with Local stays the function's.
// It is nil when r is nil or [Check] fails.
func Scope(r *interp.Runner) expand.WriteEnviron {
	if r == nil || !writeEnvFound {
		return nil
	}
	return *(*expand.WriteEnviron)(unsafe.Add(unsafe.Pointer(r), writeEnvAt))
}

// SetRandom makes src the generator behind r's $RANDOM from now on: each
// expansion is src's next Uint64 masked to 15 bits, as mvdan/sh draws
// its numbers with IntN(32768). mvdan/sh replaces the generator at the
// next assignment to RANDOM; a subshell starts without one. It reports
// false when r is nil or [Check] fails.
func SetRandom(r *interp.Runner, src mathrand.Source) bool {
	if r == nil || !randFound {
		return false
	}
	*(**mathrand.Rand)(unsafe.Add(unsafe.Pointer(r), randAt)) = mathrand.New(src)
	return true
}

// Forget deletes name from the variables r keeps over the environment it
// started with (its innermost overlay: r's own outside a function), as
// if it had never been set there: an unset keeps an unset entry, which
// every run copies, and a readonly variable refuses it. It reports
// whether name was there; false too when r is nil, [Check] fails or the
// overlay is not as [CheckedVersion] lays it out.
func Forget(r *interp.Runner, name string) bool {
	o := overlayOf(r)
	if o == nil {
		return false
	}
	if _, ok := o.values[name]; !ok {
		return false
	}
	delete(o.values, name)
	return true
}

// Inherit gives r's innermost overlay env as its parent when it has none:
// the overlay of a subshell mvdan/sh runs in the background (a `cmd &`, a
// pipeline's commands but the last) is a copy of the variables with no
// parent, which loses those an environment answers only as they are
// read. A name the copy holds, set or unset, stays its own. It reports
// whether r's overlay took env; false too when r is nil, [Check] fails
// or the overlay is not as [CheckedVersion] lays it out.
func Inherit(r *interp.Runner, env expand.Environ) bool {
	o := overlayOf(r)
	if o == nil || o.parent != nil {
		return false
	}
	o.parent = env
	return true
}

// Own is the variable name as r's own variables hold it — its innermost
// overlay's, set or unset — without asking the environment under them:
// the zero Variable when they do not hold it. ok is false when r is nil,
// [Check] fails or the overlay is not as [CheckedVersion] lays it out.
func Own(r *interp.Runner, name string) (vr expand.Variable, ok bool) {
	o := overlayOf(r)
	if o == nil {
		return expand.Variable{}, false
	}
	return o.values[name].Variable, true
}
