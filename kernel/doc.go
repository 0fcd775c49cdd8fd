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
// A [Config] is built from a [Profile] preset (host, agent, sandbox) with
// [Preset]; every field stays overridable.
package kernel
