// Package kernel is shelter's core: a [Kernel] holds a configuration and a
// registry of tools; a [Session] is one shell state on mvdan.cc/sh/v3 with
// a hermetic environment; every call answers with one [Result].
//
// Builtins, wrapped commands and harness tools all implement [Tool] and
// are found before $PATH. Before a script runs, a static pass parses it,
// refuses what shelter does not support, applies the guard (the commands
// a [Replacer] tool replaces) and each [StaticChecker] tool's own check,
// and warns about what it cannot judge; the same checks run again at
// execution on expanded words. Output is captured by spawn.Sink: bounded
// in memory, spilled to a file past the limit. Every child process runs
// through package spawn: its own process group, the session's exported
// variables exactly, SIGTERM then SIGKILL when the call ends early.
//
// A launcher (env, timeout, xargs… see [LauncherNames]) is a tool that
// runs another command with [Call.Launch], through the session's own
// dispatch, and tells the static pass what it launches ([Launcher]); the
// kernel never takes a launcher from PATH, so a kernel without them
// (package builtins' Launchers) refuses those names. [Call.Jobs] is the
// session's job control, [Call.Opener] its files.
//
// A call is a script: it runs as one interpreter run, so its EXIT trap
// runs at its end, and shelter rewrites the parsed script before it runs
// where mvdan/sh would do otherwise than bash (a for (( )) loop's status,
// quoted regex parts, `$(<file)`); the builtins mvdan/sh lacks or gets
// wrong (printf, read, echo, mapfile, type, umask, ulimit, pushd…) are
// shelter's own. mvdan/sh has descriptors 0 to 2 only: the others
// (exec 3>f, {fd}>f, >&-, read -u 3) live in a descriptor table per
// shell (fdtable.go, fds.go), which the programs a command starts inherit. docs/embedding.md, "Bash compatibility", lists what
// still differs.
//
// A session costs what it uses: NewSession touches no disk and holds no
// descriptor (but its root's, in the sandbox); its $TMPDIR ([Session.TempDir]) and spill directory
// ([Session.SpillDir]) are named at once and made on first need, and a
// name is searched for on PATH once per call, by the static pass, whose
// result the run reuses while PATH and the directory are unchanged.
// Those directories, the spill files and the job logs are made by
// descriptor, following no symbolic link, and the opener lets a session
// read them but not change them ([ShelterDirError]; docs/security.md).
//
// A session cannot take its host down: constructs that crash the
// interpreter are refused, a panic becomes a [Result], each call has a
// memory budget ([Config.MemoryLimit]), spill files and job logs a cap
// ([Config.SpillCap]), in-process reads and writes the call's deadline
// (of FIFOs and the call's pipes, on Linux), and with
// [Config.Subreaper] (Linux) processes that left their group end with the
// call that started them. docs/security.md says where each promise ends.
//
// Two layers hold a sandbox: the [Opener] keeps the shell and the
// builtins beneath the root, and with [Config.Confine] (on in the sandbox
// profile) the operating system holds every program a session starts,
// through spawn's Confinement ([Session] adds its root, $TMPDIR and each
// program's install prefix; a declaration may add its network or paths).
// A host that cannot confine refuses programs with a [*HoldError], unless
// the kernel settles for best effort and says so in every [Result].
//
// A [Config] is built from a [Profile] preset (host, agent, sandbox) with
// [Preset]; every field stays overridable.
//
// # Layout
//
// The kernel is cut into inner packages under kernel/internal, each with
// one job and a narrow exported surface, so that the compiler holds the
// layers; none imports package kernel itself:
//
//   - shast, at the bottom, imports none of the others: the shell syntax
//     tree's helpers every layer needs (a walk, the nodes shelter builds,
//     bash's quoting, a word's static value, the nesting scan that guards
//     the parser, the names of the internal commands);
//   - rewrite, on shast: the rewrites that make mvdan/sh run a parsed
//     script as bash, syntax in, syntax out;
//   - static, on shast: the static pass's pure checks (what crashes the
//     interpreter, the guard, the launchers it looks through), fed what it
//     needs of a session as plain data;
//   - mvdanpriv imports none of the others: what shelter reads of
//     mvdan/sh's private state;
//   - fsroot imports none of the others: a session's view of the file
//     system, the [Opener] (its root in the sandbox, the call's streams
//     by name, shelter's own /proc entries and descriptors refused), the
//     $TMPDIR and spill directory shelter makes for a session by
//     descriptor, and the deadlines of the files that can block;
//   - bashfmt, on shast: the text of bash's printf and echo, pure
//     functions of their arguments;
//   - bashcompat, on shast, bashfmt and rewrite (declare -f and type undo
//     the rewrites): the builtins shelter answers as bash does, which ask
//     the session for what they need through a Shell (what mvdan/sh keeps
//     private among it, which the kernel reads with mvdanpriv);
//   - jobtable imports none of the others: the books of a session's
//     background jobs and processes (ids as bash numbers them, pids, the
//     processes kill may signal, waiting) and the [Jobs] the builtins
//     see; the kernel starts the jobs and reports their processes;
//   - budget imports none of the others: what one call or job may hold
//     in shelter's memory (captures, variables) and how deep its calls
//     may nest, which ends the call through its context once outgrown;
//   - mvdancanary, tests only, imports none of ours: one canary a
//     workaround, which fails once an upgrade of mvdan/sh fixes the bug
//     the workaround exists for;
//   - kernel, on all of them: sessions, calls, tools, the run.
//
// TestLayout holds the inner packages to this table.
//
// docs/mvdan.md lists each mvdan/sh gap the kernel works around, with
// the code that does and the canary that fails once an upgrade fixes it.
package kernel
