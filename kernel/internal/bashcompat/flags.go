package bashcompat

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// What the builtins share of bash's grammar: flags, the names they assign
// to, and their refusals.

// safeSubscript is what the subscript of an indexed array's element that
// printf -v or read assigns may hold: an index or simple arithmetic,
// nothing the eval would expand.
var safeSubscript = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_ +*/%-]+$`) })

// validTarget checks a variable name a builtin assigns to; elem allows
// NAME[SUBSCRIPT].
func validTarget(name string, elem bool) bool {
	if syntax.ValidName(name) {
		return true
	}
	if !elem || !strings.HasSuffix(name, "]") {
		return false
	}
	base, sub, ok := strings.Cut(name[:len(name)-1], "[")
	return ok && syntax.ValidName(base) && sub != ""
}

// assignTarget is the source that sets name, a valid target (validTarget),
// to value: for an element, of the array its name references (mvdan/sh
// assigns an element through a reference as if the array were empty), a
// key in single quotes for an associative array, and an indexed array's
// subscript as written when safeSubscript allows it. ok is false for a
// subscript it does not.
func assignTarget(env expand.Environ, name, value string) (src string, ok bool) {
	base, sub, elem := strings.Cut(name, "[")
	if !elem {
		return assignScalar(name, value), true
	}
	sub = strings.TrimSuffix(sub, "]")
	target, vr := env.Get(base).Resolve(env)
	if target != "" && syntax.ValidName(target) {
		base = target
	}
	if vr.Kind == expand.Associative {
		return base + "[" + singleQuotedKey(sub) + "]=" + shast.Quote(value), true
	}
	if !safeSubscript().MatchString(sub) {
		return "", false
	}
	return assignScalar(base+"["+sub+"]", value), true
}

// singleQuotedKey is an associative array's key in single quotes.
func singleQuotedKey(k string) string {
	return "'" + strings.ReplaceAll(k, "'", `'\''`) + "'"
}

// invalidIdentifier is bash's line for a bad variable name.
func invalidIdentifier(cmd, name string) string {
	return fmt.Sprintf("%s: '%s': not a valid identifier\n", cmd, name)
}

// flagArgs splits bash-style builtin flags: single-letter flags, clustered
// (-rs), those in withValue taking the rest of the word or the next one.
// It stops at --, at "-" alone and at the first operand.
type flagArgs struct {
	flags  []flagArg
	rest   []string
	bad    string // an unknown flag, with its dash
	needed string // a flag given without its value
}

type flagArg struct {
	name  byte
	value string
}

func parseFlags(args []string, plain, withValue string) flagArgs {
	var fa flagArgs
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		args = args[1:]
		for i := 1; i < len(a); i++ {
			c := a[i]
			switch {
			case strings.IndexByte(withValue, c) >= 0:
				v := a[i+1:]
				if v == "" {
					if len(args) == 0 {
						fa.needed = "-" + string(c)
						return fa
					}
					v, args = args[0], args[1:]
				}
				fa.flags = append(fa.flags, flagArg{c, v})
				i = len(a)
			case strings.IndexByte(plain, c) >= 0:
				fa.flags = append(fa.flags, flagArg{name: c})
			default:
				fa.bad = "-" + string(c)
				return fa
			}
		}
	}
	fa.rest = args
	return fa
}

// allowedFlags lists a builtin's flags for a refusal.
func allowedFlags(plain, withValue string) []string {
	var out []string
	for _, c := range plain + withValue {
		out = append(out, "-"+string(c))
	}
	return out
}

// refuse prints a refusal line and gives the status argv.
func refuse(hc interp.HandlerContext, line string) []string {
	fmt.Fprintln(hc.Stderr, line)
	return StatusArgv(2)
}

// flagRefusal is the line for a flag parse that failed.
func flagRefusal(cmd string, fa flagArgs, plain, withValue string) string {
	if fa.needed != "" {
		return fmt.Sprintf("%s: flag '%s' needs a value", cmd, fa.needed)
	}
	return refusal.Line(cmd, "unknown flag "+refusal.Quote(fa.bad), allowedFlags(plain, withValue))
}
