// Package fsroot is a session's view of the file system, and the files
// shelter keeps for a session (docs/sandbox.md).
//
// An [Opener] is what every file the kernel and its builtins open, stat,
// list or create goes through: names relative to a call's working
// directory, the call's own streams for /dev/stdin and /dev/fd/N,
// shelter's own /proc entries and descriptors refused, and in the
// sandbox profile every name resolved beneath a [Root]. A [SessionDir]
// is one of the directories shelter keeps for a session, its $TMPDIR
// and its spill directory: named when the session starts, made when
// first needed, reached by descriptor and never through a symbolic link;
// the opener refuses changes to them ([ShelterDirError]). [Arm] gives the
// files that can block inside shelter's process (a FIFO, a pipe) the
// deadline of the call or job they were opened under.
//
// The package knows nothing of sessions: what it needs of one (its
// root, its directories, a call's streams and umask, the end of a call)
// is given to it as values.
package fsroot
