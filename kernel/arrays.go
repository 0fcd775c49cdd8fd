package kernel

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// arrayCall answers the internal commands of the array rewrites (package
// rewrite, arrayRewrite), which read what mvdan/sh keeps of the array
// args[1] names (NAME or NAME[@]), through name references: array-assoc
// succeeds for an associative array and fails for any other (a third
// argument is the status before it, kept in rewrite.IndirectStatusVar
// for the assignment that reads $?), assoc-reset empties one, and
// array-count prints how many elements it holds. ok is false for any
// other command.
func arrayCall(hc interp.HandlerContext, args []string) (next []string, ok bool) {
	if len(args) < 2 {
		return nil, false
	}
	name, _, _ := strings.Cut(args[1], "[")
	_, vr := hc.Env.Get(name).Resolve(hc.Env)
	switch args[0] {
	case shast.CmdArrayAssoc:
		status := 1
		if vr.Kind == expand.Associative {
			status = 0
		}
		if len(args) > 2 {
			return quietEval(hc, fmt.Sprintf("%s=%s; %s %d", rewrite.IndirectStatusVar, shast.Quote(args[2]), shast.Quote(shast.StatusWord), status)), true
		}
		return bashcompat.StatusArgv(status), true
	case shast.CmdAssocReset:
		// A list with a quoted key keeps the array associative, and
		// unsetting that key leaves it empty.
		return quietEval(hc, name+"=(['_']=); unset '"+name+"[_]'"), true
	case shast.CmdArrayCount:
		n := 0
		switch {
		case vr.Kind == expand.Associative:
			n = len(vr.Map)
		case vr.Kind == expand.Indexed:
			n = len(vr.List)
		case vr.IsSet():
			n = 1
		}
		fmt.Fprint(hc.Stdout, n)
		return bashcompat.StatusArgv(0), true
	}
	return nil, false
}

// indirectCall answers the internal indirect command of the indirection
// rewrite (rewrite.IndirectPrefix): args are the status before it, then
// the names whose `${!ref}` the next command expands (@N and its value
// for a positional parameter N), and the NAME[@] of
// the name references whose whole array it reads, which it copies to
// rewrite.NamerefPrefix+NAME, and the NAME[!] of the arrays whose keys it
// reads, which it lists in rewrite.KeysPrefix+NAME. For each ref it sets
// SHELTER_INDIRECT_ref as `${TARGET}` expands, TARGET being ref's value
// (a name, an element NAME[SUB], a positional or special parameter), or
// unsets it when TARGET is not set; ref itself when it is a name
// reference, as bash does. A ref that is unset or names no parameter
// ends the shell with status 1, as the expansion error does in bash.
func indirectCall(hc interp.HandlerContext, args []string) []string {
	if len(args) < 2 {
		return bashcompat.StatusArgv(2)
	}
	var src strings.Builder
	for i := 2; i < len(args); i++ {
		ref := args[i]
		if n, ok := strings.CutPrefix(ref, "@"); ok && i+1 < len(args) {
			// A positional parameter, and its value: bash expands an
			// empty one to nothing, with no error.
			i++
			if args[i] == "" {
				src.WriteString("unset " + rewrite.IndirectPrefix + n + "; ")
				continue
			}
			if !indirectTo(&src, hc, n, expand.Variable{Set: true, Kind: expand.String, Str: args[i]}) {
				return []string{"exit", "1"}
			}
			continue
		}
		if name, ok := strings.CutSuffix(ref, "[@]"); ok {
			src.WriteString(arrayCopy(hc.Env, name))
			continue
		}
		if name, ok := strings.CutSuffix(ref, "[!]"); ok {
			src.WriteString(keysCopy(hc.Env, name))
			continue
		}
		if !indirectTo(&src, hc, ref, hc.Env.Get(ref)) {
			return []string{"exit", "1"}
		}
	}
	status, _ := strconv.Atoi(args[1])
	fmt.Fprintf(&src, "%s=%d", rewrite.IndirectStatusVar, status)
	return quietEval(hc, src.String())
}

// indirectTo writes to src the source that sets
// rewrite.IndirectPrefix+ref as ${!ref} expands, vr being ref's variable;
// false, after bash's error, when ref names no parameter.
func indirectTo(src *strings.Builder, hc interp.HandlerContext, ref string, vr expand.Variable) bool {
	v := rewrite.IndirectPrefix + ref
	if vr.Kind == expand.NameRef {
		fmt.Fprintf(src, "%s=%s; ", v, shast.Quote(vr.Str))
		return true
	}
	target, ok := indirectTarget(hc.Env, vr)
	if !ok {
		if vr.IsSet() {
			fmt.Fprintf(hc.Stderr, "%s: invalid variable name\n", vr.String())
		} else {
			fmt.Fprintf(hc.Stderr, "%s: invalid indirect expansion\n", ref)
		}
		return false
	}
	if len(target) == 1 && !syntax.ValidName(target) && (target < "0" || target > "9") {
		// A special parameter, always set; ${#+x} would be the length
		// of +x.
		fmt.Fprintf(src, "%s=${%s}; ", v, target)
		return true
	}
	fmt.Fprintf(src, "unset %s; [[ -z ${%s+x} ]] || %s=${%s}; ", v, target, v, target)
	return true
}

// indirectTarget is the parameter vr's value names, as it goes between
// ${ and }: an associative array's key in single quotes; ok is false when
// the value names none, or has a subscript shelter does not take (one
// that would run a command or hold a quote).
func indirectTarget(env expand.Environ, vr expand.Variable) (string, bool) {
	if !vr.IsSet() {
		return "", false
	}
	t := vr.String()
	if len(t) == 1 && strings.Contains("@*#?-$!0", t) || t != "" && strings.Trim(t, "0123456789") == "" {
		return t, true
	}
	name, sub, elem := strings.Cut(t, "[")
	if !syntax.ValidName(name) {
		return "", false
	}
	if !elem {
		return t, true
	}
	sub, ok := strings.CutSuffix(sub, "]")
	if !ok || sub == "" {
		return "", false
	}
	if _, arr := env.Get(name).Resolve(env); arr.Kind == expand.Associative && sub != "@" && sub != "*" {
		if strings.Contains(sub, "'") {
			return "", false
		}
		return name + "['" + sub + "']", true
	}
	if strings.Trim(sub, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$@*+-/% ()") != "" ||
		strings.Contains(sub, "$(") {
		return "", false
	}
	return t, true
}

// arrayCopy is the source that copies the array name refers to (through
// name references) to rewrite.NamerefPrefix+name, keys and all, or unsets
// the copy.
func arrayCopy(env expand.Environ, name string) string {
	v := rewrite.NamerefPrefix + name
	_, vr := env.Get(name).Resolve(env)
	var b strings.Builder
	switch vr.Kind {
	case expand.Indexed:
		b.WriteString(v + "=(")
		for i, e := range vr.List {
			idx := i
			if vr.Indexes != nil {
				idx = vr.Indexes[i]
			}
			fmt.Fprintf(&b, "[%d]=%s ", idx, shast.Quote(e))
		}
		b.WriteString("); ")
	case expand.Associative:
		if len(vr.Map) == 0 {
			return "unset " + v + "; "
		}
		b.WriteString(v + "=(")
		for _, k := range slices.Sorted(maps.Keys(vr.Map)) {
			// A key in single quotes: mvdan/sh makes the list
			// associative.
			fmt.Fprintf(&b, "[%s]=%s ", singleQuoted(k), shast.Quote(vr.Map[k]))
		}
		b.WriteString("); ")
	default:
		if !vr.IsSet() {
			return "unset " + v + "; "
		}
		fmt.Fprintf(&b, "%s=(%s); ", v, shast.Quote(vr.String()))
	}
	return b.String()
}

// keysCopy is the source that sets rewrite.KeysPrefix+name to the keys of
// the array name refers to (through name references): an associative
// array's sorted, an indexed array's in order, none for an unset name.
func keysCopy(env expand.Environ, name string) string {
	_, vr := env.Get(name).Resolve(env)
	var keys []string
	switch vr.Kind {
	case expand.Associative:
		keys = slices.Sorted(maps.Keys(vr.Map))
	case expand.Indexed:
		for i := range vr.List {
			idx := i
			if vr.Indexes != nil {
				idx = vr.Indexes[i]
			}
			keys = append(keys, strconv.Itoa(idx))
		}
	default:
		if vr.IsSet() {
			keys = []string{"0"}
		}
	}
	var b strings.Builder
	b.WriteString(rewrite.KeysPrefix + name + "=(")
	for _, k := range keys {
		b.WriteString(shast.Quote(k) + " ")
	}
	b.WriteString("); ")
	return b.String()
}

// singleQuoted is s in single quotes, whatever it holds.
func singleQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// namerefSetCall answers the internal nameref-set command of the nameref
// rewrite: args are the name reference, the subscript as the script
// wrote it and the value (several words when it expanded "${a[@]}", which
// an assignment joins); it assigns the value to that element of the
// array the reference names (of the name itself when it is not a
// reference).
func namerefSetCall(hc interp.HandlerContext, args []string) []string {
	if len(args) < 3 {
		return bashcompat.StatusArgv(2)
	}
	name := args[1]
	if n, vr := hc.Env.Get(name).Resolve(hc.Env); n != "" && syntax.ValidName(n) && vr.Kind != expand.NameRef {
		name = n
	}
	return quietEval(hc, name+"["+args[2]+"]="+shast.Quote(strings.Join(args[3:], " ")))
}

// unsetRefCall answers the internal unset-ref command, put before a
// declaration of name references (package rewrite, unsetRefs): `unset -n`
// of each argument that is a name reference now, so that the declaration
// points it anew instead of assigning through it. A name that is not a
// reference is left alone: it may be a caller's variable that a local
// reference shadows.
func unsetRefCall(hc interp.HandlerContext, args []string) []string {
	next := []string{"unset", "-n"}
	for _, name := range args[1:] {
		if hc.Env.Get(name).Kind == expand.NameRef {
			next = append(next, name)
		}
	}
	if len(next) == 2 {
		return bashcompat.StatusArgv(0)
	}
	return next
}
