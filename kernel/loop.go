package kernel

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The loop rewrite (package rewrite) ends each rewritten for (( )) loop
// with the internal command loop-end, answered here.

// containLoop answers loop-end, and makes break, continue and return
// forget a noted status; ok is false for any other command.
func containLoop(hc interp.HandlerContext, args []string) (next []string, ok bool) {
	switch args[0] {
	case shast.CmdLoopEnd, "break", "continue", "return":
	default:
		return nil, false
	}
	noted := hc.Env.Get(rewrite.LoopStatusVar)
	if !noted.IsSet() {
		if args[0] == shast.CmdLoopEnd {
			return []string{"builtin", ":"}, true
		}
		return nil, false
	}
	if args[0] == shast.CmdLoopEnd {
		if n, _ := strconv.Atoi(noted.String()); n > 0 {
			return quietEval(hc, "unset "+rewrite.LoopStatusVar+"; "+shast.Quote(shast.StatusWord)+" "+strconv.Itoa(n)), true
		}
		return quietEval(hc, "unset "+rewrite.LoopStatusVar), true
	}
	if args[0] == "return" && len(args) == 1 {
		// Its status is the last command's, not unset's.
		args = []string{"return", strconv.Itoa(hc.LastExitStatus)}
	}
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = shast.Quote(a)
	}
	return quietEval(hc, "unset "+rewrite.LoopStatusVar+"; "+strings.Join(words, " ")), true
}
