// Package bashcompat answers the builtins that mvdan/sh lacks or gets
// wrong, as bash 5.2 does: printf, echo, read and mapfile; cd, pwd,
// dirs, pushd and popd; umask and ulimit; trap; shift, return and eval;
// declare, export, readonly and unset's listing and refusing forms, and
// declare, export, readonly and local run as plain calls; let where
// mvdan/sh's differs; type, command -v -V -p and enable; set and shopt's
// options mvdan/sh refuses.
//
// Each [Builtin] runs in the call handler, where the interpreter waits:
// it does its own I/O and hands back an argv for the interpreter to run —
// `:` or the internal status command ([StatusArgv]) once it wrote its
// output whole, or an eval of the assignments it makes, so that they land
// in the caller's scope, locals included. What a builtin needs of the
// session that runs it (its output's memory budget, its opener, its
// tools, what mvdan/sh keeps private) it asks of a [Shell], which the
// kernel's session implements. State a builtin keeps between commands
// lives in shell variables (the directory stack, the traps, the umask and
// the limits), so that a subshell's stays in the subshell; the kernel
// reads the ones it needs: [DirStackVar], [ExitTrapVar], [Umask] and
// [Rlimits]. The text of printf and echo is package bashfmt's.
package bashcompat
