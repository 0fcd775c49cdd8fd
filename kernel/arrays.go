package kernel

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// arrayCall answers the internal commands of the array rewrites (package
// rewrite, arrayRewrite), which read what mvdan/sh keeps of the array
// args[1] names (NAME or NAME[@]), through a name reference: array-kind prints A for an
// associative array and nothing for another, array-count prints how many
// elements it holds. ok is false for any other command.
func arrayCall(hc interp.HandlerContext, args []string) (next []string, ok bool) {
	if len(args) != 2 || args[0] != shast.CmdArrayKind && args[0] != shast.CmdArrayCount {
		return nil, false
	}
	name, _, _ := strings.Cut(args[1], "[")
	_, vr := hc.Env.Get(name).Resolve(hc.Env)
	out := ""
	switch {
	case args[0] == shast.CmdArrayKind:
		if vr.Kind == expand.Associative {
			out = "A"
		}
	case vr.Kind == expand.Associative:
		out = strconv.Itoa(len(vr.Map))
	case vr.Kind == expand.Indexed:
		out = strconv.Itoa(len(vr.List))
	case vr.IsSet():
		out = "1"
	default:
		out = "0"
	}
	fmt.Fprint(hc.Stdout, out)
	return bashcompat.StatusArgv(0), true
}
