package bashcompat

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// shift, return and eval as bash has them where mvdan/sh differs: shift
// past the last parameter fails and shifts nothing, a bare return returns
// the status of the command before it, and an eval whose text does not
// parse fails with status 2.

// shiftWord is the command that hands a checked shift to mvdan/sh's.
const shiftWord = "\x01shelter:shift"

// shiftBuiltin is `shift [N]`. The handler does not see $#, so the check
// runs in the caller's scope, as an eval.
func shiftBuiltin(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	if len(args) > 2 {
		return args
	}
	n := 1
	if len(args) == 2 {
		var err error
		if n, err = strconv.Atoi(strings.TrimSpace(args[1])); err != nil {
			fmt.Fprintf(hc.Stderr, "shift: %s: numeric argument required\n", args[1])
			return StatusArgv(1)
		}
		if n < 0 {
			fmt.Fprintf(hc.Stderr, "shift: %s: shift count out of range\n", args[1])
			return StatusArgv(1)
		}
	}
	if n == 0 {
		return StatusArgv(0)
	}
	count := strconv.Itoa(n)
	return sh.Eval(hc, "if (( $# < "+count+" )); then "+shast.Quote(shast.StatusWord)+" 1; else "+shast.Quote(shiftWord)+" "+count+"; fi")
}

// mvdanShift hands shiftWord's count to mvdan/sh's shift.
func mvdanShift(_ context.Context, _ Shell, _ interp.HandlerContext, args []string) []string {
	return append([]string{"shift"}, args[1:]...)
}

// returnWord is the command that hands return's status to mvdan/sh's.
const returnWord = "\x01shelter:return"

// returnBuiltin is `return [N]`: without N, the status of the last
// command, where mvdan/sh returns 0; outside a function or sourced file
// it fails with status 2, where mvdan/sh's fails with 1. The handler does
// not know whether a function runs: mvdan/sh's return fails only outside
// one, and returning skips what follows it.
func returnBuiltin(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	if len(args) > 2 {
		return args
	}
	n := strconv.Itoa(hc.LastExitStatus)
	if len(args) == 2 {
		n = shast.Quote(args[1])
	}
	return sh.Eval(hc, shast.Quote(returnWord)+" "+n+" || "+shast.Quote(shast.StatusWord)+" 2")
}

// mvdanReturn hands returnWord's status to mvdan/sh's return.
func mvdanReturn(_ context.Context, _ Shell, _ interp.HandlerContext, args []string) []string {
	return append([]string{"return"}, args[1:]...)
}

// evalBuiltin is `eval ARG...`: text that does not parse fails with
// status 2, as in bash, where mvdan/sh's fails with 1.
func evalBuiltin(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	src := strings.Join(args[1:], " ")
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		fmt.Fprintf(hc.Stderr, "eval: %v\n", err)
		return StatusArgv(2)
	}
	if line, ok := sh.EvalRefusal(file); ok {
		fmt.Fprintf(hc.Stderr, "eval: %s\n", line)
		return StatusArgv(2)
	}
	return args
}
