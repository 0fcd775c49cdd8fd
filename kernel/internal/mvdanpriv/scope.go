package mvdanpriv

import (
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
