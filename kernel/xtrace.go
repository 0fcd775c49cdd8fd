package kernel

import (
	"bytes"
	"context"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// shelter's own words stay out of `set -x`'s trace. Much of what shelter
// does for bash's behaviour runs as shell code on the runner: the evals
// the replaced builtins hand back (read's assignments, return's status),
// the commands the rewrites add (a job's start, a loop's end), the EXIT
// trap's bookkeeping. mvdan/sh traces them all as the script's own. So
//
//   - an eval of shelter's source runs with the trace off (quietEval);
//   - what shelter runs on the runner itself does too (quietly);
//   - the line of an internal command, which the interpreter writes
//     before the call handler sees the command, is dropped by the call's
//     streams and a job's log (internalTrace). A file or a pipe the
//     script sends stderr to gets it (docs/embedding.md, "Known gaps").

// quietEval is the argv that evaluates src, shelter's own source, in the
// caller's scope: an eval, or under set -x the internal quiet command,
// which evaluates it with the trace off (quietEvalCall).
func quietEval(hc interp.HandlerContext, src string) []string {
	if x := mvdanpriv.Xtrace(mvdanpriv.HandlerRunner(hc)); x != nil && *x {
		return []string{shast.CmdQuiet, src}
	}
	return []string{"eval", src}
}

// quietEvalCall runs the internal quiet command, from the exec handler:
// eval of args[1] by the runner of the command, with its trace off.
func quietEvalCall(ctx context.Context, hc interp.HandlerContext, args []string) (err error) {
	quietly(mvdanpriv.HandlerRunner(hc), func() { err = hc.Builtin(ctx, []string{"eval", args[1]}) })
	return err
}

// quietly runs f, which runs shelter's own statements on r, with r's
// trace off. It turns the trace back on only if nothing else changed it
// meanwhile.
func quietly(r *interp.Runner, f func()) {
	if x := mvdanpriv.Xtrace(r); x != nil && *x {
		*x = false
		defer func() {
			if !*x {
				*x = true
			}
		}()
	}
	f()
}

// internalTrace reports whether p is the trace of an internal command,
// which the interpreter writes in one piece: "+ " and a word of shelter's
// own, which starts with a NUL (shast.InternalPrefix) or a SOH
// (shast.StatusWord and its kin, which eval's source can name).
func internalTrace(p []byte) bool {
	return len(p) > 3 && p[0] == '+' && p[1] == ' ' && (p[2] == 0 || p[2] == 1) && bytes.HasPrefix(p[3:], internalName)
}

var internalName = []byte("shelter:")
