package mvdanpriv

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"
)

// CheckedVersion is the mvdan.cc/sh/v3 whose unexported fields the readers
// were written against and checked on. A test fails when go.mod names
// another: recheck the readers and docs/mvdan.md, then update it.
const CheckedVersion = "v3.14.1"

// modulePath is the module whose state the readers read.
const modulePath = "mvdan.cc/sh/v3"

// A LayoutError reports that the mvdan.cc/sh/v3 built into the program
// does not keep a field a reader relies on as [CheckedVersion] does.
type LayoutError struct {
	Version string // the mvdan.cc/sh/v3 built, as the build info names it
	Struct  string // the struct that should hold the field: "interp.Runner"
	Field   string
	Problem string // what is wrong with the field; empty when there is none
}

func (e *LayoutError) Error() string {
	what := fmt.Sprintf("%s has no field '%s'", e.Struct, e.Field)
	if e.Problem != "" {
		what = fmt.Sprintf("%s field '%s' %s", e.Struct, e.Field, e.Problem)
	}
	return fmt.Sprintf("shelter: %s %s: %s (checked against %s)", modulePath, e.Version, what, CheckedVersion)
}

// Check verifies, once per process, that every field the readers rely on
// is where they look, with the type they read. It returns a
// *[LayoutError] for the first that is not; the readers then answer nil
// or false.
func Check() error { return checkOnce() }

var checkOnce = sync.OnceValue(func() error {
	// The build info is read for a failure's report only: reading it
	// costs a start more than the check itself.
	err := check(fields, "")
	if err == nil && len(optionsAt()) != len(OptionNames) {
		err = &LayoutError{Struct: optsField.in.String(), Field: optsField.name,
			Problem: "lacks an option of OptionNames that turning it on alone sets"}
	}
	if err != nil {
		err.Version = builtVersion()
		return err
	}
	return nil
})

// check verifies table's fields against version, the mvdan.cc/sh/v3 that
// holds them.
func check(table []field, version string) *LayoutError {
	for _, f := range table {
		sf, ok := f.in.FieldByName(f.name)
		if !ok {
			return &LayoutError{Version: version, Struct: f.in.String(), Field: f.name}
		}
		if !f.fits(sf.Type) {
			return &LayoutError{Version: version, Struct: f.in.String(), Field: f.name,
				Problem: fmt.Sprintf("is %s, not %s", sf.Type, f.want)}
		}
	}
	return nil
}

// builtVersion is the version of mvdan.cc/sh/v3 the program was built
// with, as its build info says; "(unknown)" when it does not.
func builtVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	for _, m := range bi.Deps {
		if m.Path != modulePath {
			continue
		}
		if m.Replace != nil && m.Replace.Version != "" {
			return m.Replace.Version
		}
		return m.Version
	}
	return "(unknown)"
}

// A field is one unexported field a reader relies on.
type field struct {
	in   reflect.Type // the struct holding it
	name string
	want string                  // its type, as a LayoutError says it
	fits func(reflect.Type) bool // reports whether a type is want
}

// find is where f lies in its struct; ok is false when the struct has no
// such field or its type does not fit.
func (f field) find() (offset uintptr, ok bool) {
	sf, ok := f.in.FieldByName(f.name)
	if !ok || !f.fits(sf.Type) {
		return 0, false
	}
	return sf.Offset, true
}

// is reports whether t is T.
func is[T any](t reflect.Type) bool { return t == reflect.TypeFor[T]() }

func boolArray(t reflect.Type) bool {
	return t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Bool
}

// doneSlice reports whether t is a slice of structs whose first field is
// a chan struct{}.
func doneSlice(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct &&
		t.Elem().NumField() > 0 && t.Elem().Field(0).Type == reflect.TypeFor[chan struct{}]()
}
