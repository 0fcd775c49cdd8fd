// Package wrapped declares real programs as shelter commands: a wrapped
// command pins an executable and names the verbs, flags and positional
// arguments an agent may give it. Every call is parsed against the
// declaration, checked (values, required parts, the directories a path may
// point into, stdin) and rendered by shelter into the argv of the child,
// never into a shell string. The contract for users is
// docs/wrapped_command.md in the repository.
//
// A declaration is written in YAML ([LoadFile], [DecodeYAML]) or built in
// Go with [New], [NewVerb] and the flag and argument constructors; both
// produce a [CommandSpec], which [CommandSpec.Build] checks and compiles
// into a [Command]. A *Command is a kernel.Tool of kind wrapped, a
// kernel.StaticChecker (the static pass judges calls before a script runs)
// and a kernel.Helper.
//
// [Command.Plan] is the parse → check → render path on its own, shared by
// Run and by the static check; [Command.PlanJSON] renders a JSON object
// through the same checks, for frontends that call verbs with JSON (each
// [Verb] publishes its [Verb.Schema]). Every refusal is an error value
// whose Error() is the one line shelter prints (see [UnknownFlagError] and
// its siblings).
//
// [Command.Run] starts the pinned executable with the environment of a
// declared program (kernel.Call.ProgramEnv with the declaration's
// pass_env, then its env pins). A path_under argument reaches the child
// in one of two ways, a trade-off between a race and a readable path:
//
//   - as the checked path, resolved and absolute: what the child prints,
//     names in tracebacks and matches against a worktree is the real path,
//     but the child looks it up again, so a directory swapped for a
//     symlink between the check and that lookup is followed;
//   - held: on Linux the checked path is opened beneath its directory
//     (openat2, RESOLVE_BENEATH) right before the child starts and handed
//     to it as an inherited descriptor, /proc/self/fd/N, so that what the
//     child opens is what was checked, whatever happens to the tree; but
//     /proc/self/fd/N is the name the child sees.
//
// By default a path is held in the sandbox profile, where path_under is
// the boundary, and handed as the path in the host and agent profiles;
// a declaration chooses per argument with hold: true or false
// ([ArgSpec.Hold]). [Plan].Argv always shows the checked path.
//
// Where the session confines its programs (the sandbox profile), the
// operating system holds the child to the session's root, its $TMPDIR and
// the system's directories, without the network; a declaration may ask
// for more, for the whole command or one verb: the network
// ([CommandSpec.Network]) and further paths to read or write
// ([CommandSpec.ReadPaths], [CommandSpec.WritePaths]).
package wrapped
