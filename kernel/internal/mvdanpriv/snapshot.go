package mvdanpriv

import (
	"maps"
	"reflect"
	"slices"
	"sync/atomic"
	"unsafe"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// Snapshot is a copy of r's state — variables, functions, aliases,
// options, directory, parameters — that r's later runs do not change and
// that changes nothing of r when it runs itself, even while r runs on
// another goroutine. r must not be running while Snapshot reads it.
//
// [interp.Runner.Subshell] makes such a copy by setting each variable
// anew in a fresh table. Snapshot makes the one interp makes for a
// foreground subshell (unexported: subshell(false)), whose variables lie
// over r's, and then lays them over what r's lie over instead — the
// environment r started with ([interp.Env]), which interp never writes
// to — with a copy of r's own table (arrays copied too, since interp
// appends to an array's first element in place). It falls back to
// Subshell when r's variables are not laid out so: inside a function,
// over another table, or not as [CheckedVersion] has them.
func Snapshot(r *interp.Runner) *interp.Runner {
	o := overlayOf(r)
	if o == nil || o.funcScope || isOverlay(o.parent) {
		return r.Subshell()
	}
	s := subshell(r, false)
	so := overlayOf(s) // a new overlay, over o
	so.parent, so.values = o.parent, copyValues(o.values)
	s.Env = r.Env
	return s
}

//go:linkname subshell mvdan.cc/sh/v3/interp.(*Runner).subshell
func subshell(r *interp.Runner, background bool) *interp.Runner

// overlay is interp's overlayEnviron as [CheckedVersion] lays it out: a
// table of variables over a parent environment, funcScope when the
// table is a function's.
type overlay struct {
	parent    expand.Environ
	values    map[string]namedVariable
	funcScope bool
}

// namedVariable is interp's, a variable with the name it was set as.
type namedVariable struct {
	Name string
	expand.Variable
}

// overlayOf is the overlay r's variables are in; nil when r is nil or its
// variables are not in an overlay laid out as [overlay].
func overlayOf(r *interp.Runner) *overlay {
	env := Scope(r)
	if env == nil {
		return nil
	}
	// An interface value is two words: its dynamic type's table for the
	// interface, then a pointer to the value. The kernel reads a
	// session's state through here on every call: one comparison of
	// the first word stands for overlayFits once it held.
	words := (*[2]unsafe.Pointer)(unsafe.Pointer(&env))
	if (*byte)(words[0]) != overlayTab.Load() {
		if !overlayFits(reflect.TypeOf(env)) {
			return nil
		}
		overlayTab.Store((*byte)(words[0]))
	}
	return (*overlay)(words[1])
}

// overlayTab is the first word of a writeEnv that fits [overlay].
var overlayTab atomic.Pointer[byte]

// overlayFits reports whether t, a writeEnv's type, is a pointer to a
// struct laid out as [overlay]: the same fields at the same offsets,
// the table's elements as namedVariable. The type that fits is kept, so
// that each call after the first compares one pointer.
func overlayFits(t reflect.Type) bool {
	if known, _ := overlayType.Load().(reflect.Type); known == t {
		return true
	}
	if !sameLayout(t) {
		return false
	}
	overlayType.Store(t)
	return true
}

var overlayType atomic.Value // reflect.Type

func sameLayout(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem().Name() != "overlayEnviron" {
		return false
	}
	return sameFields(t.Elem(), reflect.TypeFor[overlay](), func(got, want reflect.Type) bool {
		if got.Kind() == reflect.Map && want.Kind() == reflect.Map {
			return got.Key() == want.Key() && sameFields(got.Elem(), want.Elem(), nil)
		}
		return got == want
	})
}

// sameFields reports whether structs got and want have the same size
// and fields (names, offsets, embedding), each field's type the same as
// fits says, or identical when fits is nil.
func sameFields(got, want reflect.Type, fits func(got, want reflect.Type) bool) bool {
	if got.Kind() != reflect.Struct || got.Size() != want.Size() || got.NumField() != want.NumField() {
		return false
	}
	for i := range want.NumField() {
		g, w := got.Field(i), want.Field(i)
		if g.Name != w.Name || g.Offset != w.Offset || g.Anonymous != w.Anonymous {
			return false
		}
		if fits == nil && g.Type != w.Type || fits != nil && !fits(g.Type, w.Type) {
			return false
		}
	}
	return true
}

// isOverlay reports whether env is an overlay, which interp writes to.
func isOverlay(env expand.Environ) bool {
	t, _ := overlayType.Load().(reflect.Type)
	return env != nil && reflect.TypeOf(env) == t
}

// copyValues is a copy of a table of variables sharing no array with it.
func copyValues(values map[string]namedVariable) map[string]namedVariable {
	c := maps.Clone(values)
	for name, vr := range c {
		if vr.List == nil && vr.Indexes == nil && vr.Map == nil {
			continue
		}
		vr.List, vr.Indexes, vr.Map = slices.Clone(vr.List), slices.Clone(vr.Indexes), maps.Clone(vr.Map)
		c[name] = vr
	}
	return c
}
