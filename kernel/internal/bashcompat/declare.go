package bashcompat

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// declare, typeset, export and readonly's listing forms as bash 5.2 has
// them: declare -F and -f (functions, bash's printing), declare -p (bash's
// quoting and attribute letters), export -p, readonly -p, and the
// unexporting export -n and declare +x. mvdan/sh parses these names as
// declaration clauses, which never reach the call handler, so the
// rewrites (package rewrite) turn a clause that only lists or unexports (no
// assignment, literal flags of these forms alone) into a plain call
// before the run. Clauses that assign stay mvdan/sh's; so do the ones in
// text that eval or source parse at run time.
//
// A declaration builtin that is a plain call — after a prefix assignment
// (`a=1 export b=2`), through `command` or `builtin`, or named by an
// expansion (`$x y=1`) — reaches the call handler with its words
// expanded; one that assigns, or names a variable, becomes the
// declaration clause of those words (declClause), evaluated in the
// caller's scope, as bash parses a declaration builtin's arguments at
// run time.
//
// mvdan/sh's variables have no integer, case or trace attribute, and a
// `declare v` without a value leaves no variable: declare -p cannot show
// what is not kept.

// declArgs splits a rewritten clause's words into its flags and names.
func declArgs(args []string) (flags string, names []string) {
	for i, a := range args {
		if a == "--" {
			return flags, args[i+1:]
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			return flags, args[i:]
		}
		flags += a
	}
	return flags, nil
}

func declareCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	flags, names := declArgs(args[1:])
	switch {
	case strings.Contains(flags, "+x"):
		return unexport(sh, hc, names)
	case strings.Contains(flags, "F"), strings.Contains(flags, "f"):
		return declareFuncs(ctx, sh, hc, args[0], strings.Contains(flags, "F"), names)
	case len(names) > 0 && !strings.Contains(flags, "p"):
		return sh.Eval(hc, declClause("declare", args[1:]))
	}
	var b, errs strings.Builder
	status := 0
	if len(names) == 0 {
		has := attributeFilter(flags)
		for _, n := range visibleVars(hc.Env) {
			if vr := hc.Env.Get(n); has(vr) {
				b.WriteString(declareLine(n, vr))
			}
		}
	}
	for _, n := range names {
		vr := hc.Env.Get(n)
		if !vr.Declared() {
			errs.WriteString(args[0] + ": " + n + ": not found\n")
			status = 1
			continue
		}
		b.WriteString(declareLine(n, vr))
	}
	hc.Stderr.Write([]byte(errs.String()))
	return wrote(ctx, sh, hc, args[0], b.String(), status)
}

// attributeFilter is what `declare -r`, `-x`, `-a`, `-A` and `-n` list:
// the variables with each attribute flags names; every variable for none.
func attributeFilter(flags string) func(expand.Variable) bool {
	return func(vr expand.Variable) bool {
		for _, f := range strings.ReplaceAll(strings.ReplaceAll(flags, "-", ""), "p", "") {
			switch {
			case f == 'r' && !vr.ReadOnly,
				f == 'x' && !vr.Exported,
				f == 'a' && vr.Kind != expand.Indexed,
				f == 'A' && vr.Kind != expand.Associative,
				f == 'n' && vr.Kind != expand.NameRef:
				return false
			}
		}
		return true
	}
}

// declareFuncs is declare -F (names only) and declare -f.
func declareFuncs(ctx context.Context, sh Shell, hc interp.HandlerContext, name string, namesOnly bool, names []string) []string {
	funcs := sh.Funcs(hc)
	var b strings.Builder
	if len(names) == 0 {
		for _, n := range slices.Sorted(maps.Keys(funcs)) {
			if namesOnly {
				b.WriteString("declare -f " + n + "\n")
			} else {
				b.WriteString(funcText(n, funcs[n], false) + "\n")
			}
		}
		return wrote(ctx, sh, hc, name, b.String(), 0)
	}
	status := 0
	for _, n := range names {
		body := funcs[n]
		switch {
		case body == nil:
			status = 1
		case namesOnly:
			b.WriteString(n + "\n")
		default:
			b.WriteString(funcText(n, body, false) + "\n")
		}
	}
	return wrote(ctx, sh, hc, name, b.String(), status)
}

func exportCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	flags, names := declArgs(args[1:])
	switch {
	case strings.Contains(flags, "n"):
		return unexport(sh, hc, names)
	case len(names) > 0 && !strings.Contains(flags, "p"):
		return sh.Eval(hc, declClause("export", args[1:]))
	}
	return wrote(ctx, sh, hc, "export", attributeLines(hc.Env, func(vr expand.Variable) bool { return vr.Exported }), 0)
}

func readonlyCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	if flags, names := declArgs(args[1:]); len(names) > 0 && !strings.Contains(flags, "p") {
		return sh.Eval(hc, declClause("readonly", args[1:]))
	}
	return wrote(ctx, sh, hc, "readonly", attributeLines(hc.Env, func(vr expand.Variable) bool { return vr.ReadOnly }), 0)
}

// localCall is local as a plain call: the clause of its words, which
// mvdan/sh's own local refuses outside a function. A name without a
// value or a flag is a local that is unset, as in bash, where mvdan/sh's
// would copy the value it hides; a local the function made already
// keeps its value. Without a name it lists nothing.
func localCall(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	flags, names := declArgs(args[1:])
	if len(names) == 0 {
		return StatusArgv(0)
	}
	var unset []string
	for _, n := range names {
		if flags == "" && syntax.ValidName(n) && !sh.LocalHere(hc, n) {
			unset = append(unset, n)
		}
	}
	src := declClause("local", args[1:])
	if len(unset) > 0 {
		src += " && unset -v " + strings.Join(unset, " ")
	}
	return sh.Eval(hc, src)
}

// declClause is the source of the declaration clause variant that args,
// a call's expanded words, make: each flag and name as it is, each
// NAME=VALUE (NAME+=VALUE, NAME[SUBSCRIPT]=VALUE) an assignment of the
// value quoted, so that nothing in it expands again. A word that is
// neither stays one quoted word, which the clause refuses as bash does.
// The attributes mvdan/sh's clause refuses (-i, -l, -u, -t) leave the
// flags and do their work on the values here (package rewrite does it
// for the clauses a script writes): an integer's value that is an
// expression becomes its arithmetic, a case attribute changes the case.
func declClause(variant string, args []string) string {
	words := []string{variant}
	attrs := ""
	flags := true
	for _, a := range args {
		if flags && len(a) > 1 && (a[0] == '-' || a[0] == '+') && a != "--" {
			// One word a letter: mvdan/sh's clause keeps only the first.
			for _, r := range a[1:] {
				if a[0] == '-' && strings.ContainsRune("ilut", r) {
					attrs += string(r)
				} else {
					words = append(words, shast.Quote(a[:1]+string(r)))
				}
			}
			continue
		}
		flags = false
		name, value, ok := strings.Cut(a, "=")
		if !ok || !assignable(name) {
			words = append(words, shast.Quote(a))
			continue
		}
		switch {
		case strings.ContainsRune(attrs, 'i') && !strings.HasSuffix(name, "+"):
			if strings.TrimSpace(value) == "" {
				value = "0"
			}
			if _, why := letExpr(value); why == "" {
				words = append(words, name+"=$(("+value+"\n))")
				continue
			}
		case strings.ContainsRune(attrs, 'l') && !strings.ContainsRune(attrs, 'u'):
			value = strings.ToLower(value)
		case strings.ContainsRune(attrs, 'u') && !strings.ContainsRune(attrs, 'l'):
			value = strings.ToUpper(value)
		}
		words = append(words, name+"="+shast.Quote(value))
	}
	return strings.Join(words, " ")
}

// assignable reports whether name, the text before an argument's `=`, is
// a name to assign: NAME, NAME+ or NAME[SUBSCRIPT] with a subscript of
// plain characters (an expansion in it would run again).
func assignable(name string) bool {
	name = strings.TrimSuffix(name, "+")
	base, sub, indexed := strings.Cut(name, "[")
	if !indexed {
		return syntax.ValidName(name)
	}
	sub, closed := strings.CutSuffix(sub, "]")
	return syntax.ValidName(base) && closed && sub != "" &&
		strings.Trim(sub, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-*/% ") == ""
}

// unsetCall refuses to unset a readonly variable, as bash does (mvdan/sh
// keeps it but reports success); the other names are unset.
func unsetCall(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	i := 1
	funcsOnly, refsOnly := false, false
	for ; i < len(args) && len(args[i]) > 1 && args[i][0] == '-'; i++ {
		if args[i] == "--" {
			i++
			break
		}
		funcsOnly = strings.Contains(args[i], "f")
		refsOnly = refsOnly || strings.Contains(args[i], "n")
	}
	if funcsOnly {
		return args
	}
	if !refsOnly {
		args = unsetTargets(hc, args, i)
	}
	var keep []string
	var errs strings.Builder
	for _, n := range args[i:] {
		if vr := hc.Env.Get(n); vr.ReadOnly {
			errs.WriteString("unset: " + n + ": cannot unset: readonly variable\n")
			continue
		}
		keep = append(keep, n)
	}
	if errs.Len() == 0 {
		return args
	}
	hc.Stderr.Write([]byte(errs.String()))
	var assigns []string
	if len(keep) > 0 {
		words := []string{"unset"}
		for _, a := range append(slices.Clone(args[1:i]), keep...) {
			words = append(words, shast.Quote(a))
		}
		assigns = append(assigns, strings.Join(words, " "))
	}
	return assignArgv(sh, hc, assigns, 1)
}

// unsetTargets is args with each name from i on that is a name reference
// replaced by the variable it names: bash unsets that one (mvdan/sh
// unsets the reference), and `unset -n` the reference.
func unsetTargets(hc interp.HandlerContext, args []string, i int) []string {
	var out []string
	for j := i; j < len(args); j++ {
		vr := hc.Env.Get(args[j])
		if vr.Kind != expand.NameRef {
			continue
		}
		if target, tv := vr.Resolve(hc.Env); target != "" && tv.Kind != expand.NameRef {
			if out == nil {
				out = slices.Clone(args)
			}
			out[j] = target
		}
	}
	if out == nil {
		return args
	}
	return out
}

// unexport takes the export attribute off names: mvdan/sh has no way to,
// so each variable is unset and set again, in its own scope.
func unexport(sh Shell, hc interp.HandlerContext, names []string) []string {
	var src []string
	for _, n := range names {
		vr := hc.Env.Get(n)
		if !syntax.ValidName(n) || !vr.Exported || vr.ReadOnly {
			continue
		}
		again := reassign(n, vr)
		if vr.Local {
			again = "local " + again
		}
		src = append(src, "unset -v "+n, again)
	}
	return assignArgv(sh, hc, src, 0)
}

// reassign is the source that sets n to vr's value.
func reassign(n string, vr expand.Variable) string {
	switch vr.Kind {
	case expand.Indexed:
		return n + "=" + arrayText(vr)
	case expand.Associative:
		if vr.Local {
			return "-A " + n + "=" + assocText(vr)
		}
		return "declare -gA " + n + "=" + assocText(vr)
	}
	if !vr.IsSet() {
		return n
	}
	return n + "=" + shast.Quote(vr.Str)
}

// visibleVars is every variable's name, sorted, but shelter's own, and
// those of shast.IdentityVars the shell has.
func visibleVars(env expand.Environ) []string {
	var names []string
	env.Each(func(name string, vr expand.Variable) bool {
		// shelter's internal state lives in SHELTER_* variables.
		if vr.Declared() && !strings.HasPrefix(name, "SHELTER_") {
			names = append(names, name)
		}
		return true
	})
	for _, name := range shast.IdentityVars {
		if env.Get(name).Declared() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// attributeLines is export -p's and readonly -p's listing.
func attributeLines(env expand.Environ, has func(expand.Variable) bool) string {
	var b strings.Builder
	for _, n := range visibleVars(env) {
		if vr := env.Get(n); has(vr) {
			b.WriteString(declareLine(n, vr))
		}
	}
	return b.String()
}

// declareLine is declare -p's line for n.
func declareLine(n string, vr expand.Variable) string {
	var flags []byte
	switch vr.Kind {
	case expand.Indexed:
		flags = append(flags, 'a')
	case expand.Associative:
		flags = append(flags, 'A')
	case expand.NameRef:
		flags = append(flags, 'n')
	}
	if vr.ReadOnly {
		flags = append(flags, 'r')
	}
	if vr.Exported {
		flags = append(flags, 'x')
	}
	if len(flags) == 0 {
		flags = append(flags, '-')
	}
	line := "declare -" + string(flags) + " " + n
	switch {
	case vr.Kind == expand.Indexed:
		line += "=" + arrayText(vr)
	case vr.Kind == expand.Associative && (vr.IsSet() || len(vr.Map) > 0):
		// declared -A and never assigned: bash shows no value.
		line += "=" + assocText(vr)
	case vr.IsSet():
		line += "=" + declareQuote(vr.Str)
	}
	return line + "\n"
}

// declareQuote is bash's quoting of a value in declare -p: double quotes,
// or $'...' when the value holds what does not print.
func declareQuote(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			return shast.ANSICQuote(s)
		}
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("\"$`\\", s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

func arrayText(vr expand.Variable) string {
	var parts []string
	for i, v := range vr.List {
		idx := i
		if vr.Indexes != nil {
			idx = vr.Indexes[i]
		}
		parts = append(parts, "["+strconv.Itoa(idx)+"]="+declareQuote(v))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// assocText is an associative array's value, keys sorted (bash's order is
// its hash table's).
func assocText(vr expand.Variable) string {
	var b strings.Builder
	b.WriteByte('(')
	for _, k := range slices.Sorted(maps.Keys(vr.Map)) {
		key := k
		if shast.Quote(k) != k {
			key = declareQuote(k)
		}
		b.WriteString("[" + key + "]=" + declareQuote(vr.Map[k]) + " ")
	}
	b.WriteByte(')')
	return b.String()
}
