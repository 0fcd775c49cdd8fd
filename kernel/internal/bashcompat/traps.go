package bashcompat

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/internal/signame"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// shelter answers trap itself (docs/embedding.md, "Bash compatibility"):
// mvdan/sh knows only EXIT and ERR, lists them in Go's quoting and fails a
// whole trap command on any other condition. Each trap's action is kept in
// a shell variable, SHELTER_TRAP_<COND>, so that it has the scope bash
// gives it — a subshell's trap stays in the subshell — and `trap` and
// `trap -p` list them as bash does. The call runs the EXIT trap at its
// end (ExitTrapVar); ERR is also handed to mvdan/sh's own trap, which runs
// it. A subshell's EXIT trap does not run. A signal's trap is kept and listed
// but never runs: the session's shell is no process a signal reaches (a
// cancelled or timed-out call runs the EXIT trap instead). DEBUG and
// RETURN traps are refused.

// trapVarPrefix names the variable that holds a condition's action.
const trapVarPrefix = "SHELTER_TRAP_"

// ExitTrapVar is the variable that holds the EXIT trap's action, which
// the kernel runs at the end of each call that set it.
const ExitTrapVar = trapVarPrefix + "EXIT"

// trapWord is the command that hands a trap to mvdan/sh's builtin; the
// eval a trap command returns can name it.
const trapWord = "\x01shelter:trap"

const trapUsage = "trap: usage: trap [-lp] [[arg] signal_spec ...]"

// trapCondition is a condition word as bash names it in listings: EXIT,
// ERR, DEBUG, RETURN or SIG and a signal's name. ok is false for what is
// no condition.
func trapCondition(word string) (cond string, ok bool) {
	switch up := strings.ToUpper(word); up {
	case "EXIT", "SIGEXIT", "0":
		return "EXIT", true
	case "ERR", "DEBUG", "RETURN":
		return up, true
	}
	n, err := strconv.Atoi(word)
	if err != nil {
		sig, ok := signame.Parse(word)
		if !ok {
			return realtimeCondition(word)
		}
		n = int(sig)
	}
	name := signame.Name(n)
	if n <= 0 || name == "" {
		return "", false
	}
	return "SIG" + name, true
}

// realtimeCondition names the real-time signals as bash lists them
// (RTMIN+1, SIGRTMAX-2), which the system's table does not.
func realtimeCondition(word string) (string, bool) {
	name := strings.TrimPrefix(strings.ToUpper(word), "SIG")
	for n := 32; n <= 64; n++ {
		if signame.Name(n) == name && name != "" {
			return "SIG" + name, true
		}
	}
	return "", false
}

// trapVar is the variable that holds cond's action: a name, so the
// real-time signals' + and - become _P and _M.
func trapVar(cond string) string {
	return trapVarPrefix + trapVarNames.Replace(cond)
}

var trapVarNames = strings.NewReplacer("+", "_P", "-", "_M")

// trapConditions are every condition in the order bash lists them.
func trapConditions() []string {
	conds := []string{"EXIT"}
	for n := 1; n <= 64; n++ {
		if name := signame.Name(n); name != "" {
			conds = append(conds, "SIG"+name)
		}
	}
	return append(conds, "ERR")
}

// trapLine is how bash lists a trap.
func trapLine(action, cond string) string {
	return "trap -- '" + strings.ReplaceAll(action, "'", `'\''`) + "' " + cond + "\n"
}

// trapBuiltin is `trap [-lp] [[ACTION] COND...]`.
func trapBuiltin(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], "pl", "")
	if fa.bad != "" {
		fmt.Fprintf(hc.Stderr, "trap: %s: invalid option\n%s\n", fa.bad, trapUsage)
		return StatusArgv(2)
	}
	var listing, signals bool
	for _, f := range fa.flags {
		listing = listing || f.name == 'p'
		signals = signals || f.name == 'l'
	}
	rest := fa.rest
	if signals {
		return wrote(ctx, sh, hc, "trap", signame.Table(), 0)
	}
	if listing || len(rest) == 0 {
		return listTraps(ctx, sh, hc, rest)
	}
	action, words := rest[0], rest[1:]
	if len(words) == 0 {
		// `trap INT` resets it, as `trap - INT`.
		action, words = "-", rest
	}
	var src []string
	status := 0
	for _, w := range words {
		cond, ok := trapCondition(w)
		switch {
		case !ok:
			fmt.Fprintf(hc.Stderr, "trap: %s: invalid signal specification\n", w)
			status = max(status, 1)
			continue
		case cond == "DEBUG" || cond == "RETURN":
			fmt.Fprintln(hc.Stderr, refusal.Line("trap", refusal.Quote(w)+" is a condition shelter never traps", []string{"ERR", "EXIT", "a signal's name"}))
			status = 2
			continue
		}
		if action == "-" {
			src = append(src, "unset "+trapVar(cond))
		} else {
			src = append(src, assignScalar(trapVar(cond), action))
		}
		if cond == "ERR" {
			src = append(src, shast.Quote(trapWord)+" -- "+shast.Quote(errTrapAction(action))+" "+cond)
		}
	}
	if len(src) == 0 {
		return StatusArgv(status)
	}
	if status != 0 {
		src = append(src, shast.Quote(shast.StatusWord)+" "+strconv.Itoa(status))
	}
	return sh.Eval(hc, strings.Join(src, "\n"))
}

// listTraps is `trap -p [COND...]`: every trap set, or those named.
func listTraps(ctx context.Context, sh Shell, hc interp.HandlerContext, words []string) []string {
	var out strings.Builder
	status := 0
	if len(words) == 0 {
		for _, cond := range trapConditions() {
			if v := hc.Env.Get(trapVar(cond)); v.IsSet() {
				out.WriteString(trapLine(v.String(), cond))
			}
		}
		return wrote(ctx, sh, hc, "trap", out.String(), 0)
	}
	for _, w := range words {
		cond, ok := trapCondition(w)
		if !ok {
			fmt.Fprintf(hc.Stderr, "trap: %s: invalid signal specification\n", w)
			status = 1
			continue
		}
		if v := hc.Env.Get(trapVar(cond)); v.IsSet() {
			out.WriteString(trapLine(v.String(), cond))
		}
	}
	return wrote(ctx, sh, hc, "trap", out.String(), status)
}

// mvdanTrap hands trapWord's arguments to mvdan/sh's trap.
func mvdanTrap(_ context.Context, _ Shell, _ interp.HandlerContext, args []string) []string {
	return append([]string{"trap"}, args[1:]...)
}
