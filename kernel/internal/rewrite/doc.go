// Package rewrite turns a parsed script into one that mvdan/sh runs as
// bash would (docs/embedding.md, "Bash compatibility"): [Script] rewrites
// a *syntax.File in place, and [Rewritable] tells the static pass whether
// a node is one Script may change, so that a script without one is run as
// parsed.
//
// The rewrites add internal commands (shast.CmdLoopEnd, shast.CmdGoOn,
// shast.CmdBgNext, shast.CmdPipeSet and their kin) and variables ([LoopStatusVar],
// [BangVar], [GuardStatusVar]); the kernel answers the commands at run
// time, and undoes the rewrites where a script's own text is shown
// ([LoopAdded], [LoopFirst], [LoopAsWritten], [ExitGuarded]). [Framed]
// is the one rewrite the kernel makes as the script runs: a function's
// body as it is called, which [Unframed] undoes. Every
// function here is pure: syntax in, syntax out.
package rewrite
