package mvdanpriv

import (
	"reflect"
	"strings"
	"unsafe"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// aliasField is an [interp.Runner]'s alias table: a map from each name to
// the words it stands for and whether a blank ended its value.
var aliasField = field{reflect.TypeFor[interp.Runner](), "alias", "a map of names to {args []*syntax.Word; blank bool}", aliasMap}

func aliasMap(t reflect.Type) bool {
	if t.Kind() != reflect.Map || t.Key().Kind() != reflect.String {
		return false
	}
	e := t.Elem()
	return e.Kind() == reflect.Struct && e.NumField() == 2 &&
		e.Field(0).Type == reflect.TypeFor[[]*syntax.Word]() && e.Field(1).Type.Kind() == reflect.Bool
}

// Alias is the value of r's alias name as `alias name` prints it; ok is
// false when r has no such alias, r is nil or [Check] fails. mvdan/sh
// keeps an alias as parsed words, so the text is theirs, printed again.
func Alias(r *interp.Runner, name string) (text string, ok bool) {
	sf, found := aliasField.in.FieldByName(aliasField.name)
	if r == nil || !found || !aliasField.fits(sf.Type) {
		return "", false
	}
	table := reflect.NewAt(sf.Type, unsafe.Add(unsafe.Pointer(r), sf.Offset)).Elem()
	v := table.MapIndex(reflect.ValueOf(name))
	if !v.IsValid() {
		return "", false
	}
	als := reflect.New(v.Type()).Elem()
	als.Set(v)
	args := *(*[]*syntax.Word)(unsafe.Pointer(als.Field(0).UnsafeAddr()))
	var b strings.Builder
	if len(args) > 0 {
		syntax.NewPrinter().Print(&b, &syntax.CallExpr{Args: args})
	}
	if als.Field(1).Bool() {
		b.WriteByte(' ')
	}
	return b.String(), true
}

// ExpandAliases is r's expand_aliases shell option; false when r is nil
// or [Check] fails.
func ExpandAliases(r *interp.Runner) bool {
	p := Option(r, "expand_aliases")
	return p != nil && *p
}
