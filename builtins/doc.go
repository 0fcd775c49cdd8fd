// Package builtins holds shelter's in-process commands, each a
// [kernel.Tool]: the coreutils the sandbox serves (cat, grep, sed, sort,
// jq, …), which work on files only through the call's
// [kernel.Opener], so that a confined session's files stay beneath its
// root; and, in [Launchers], the launchers (env, timeout, xargs…, each a
// [kernel.Launcher] on [kernel.Call.Launch]), job control on
// [kernel.Call.Jobs], and help and tools.
//
// Each command is GNU-compatible for the flags it accepts (short and long
// forms, clustered short flags, --long=value, --), prints its usage with
// --help, and refuses a flag it does not take with one line naming the
// flags it does. The contract is docs/sandbox.md.
package builtins
