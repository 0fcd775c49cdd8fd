// Package spawn is shelter's one discipline for running a child process
// and bounding what it prints.
//
// [Run] starts a [Cmd] with exactly the environment, working directory and
// standard streams it is given, in a process group of its own (and, off
// a terminal, a session of its own, with no controlling terminal), with a
// parent-death signal, optionally on a pseudo-terminal ([Cmd.TTY]) and
// with a niceness ([Cmd.Nice]), a umask ([Cmd.Umask]) and resource limits
// ([Cmd.Limits]) of its own.
// Input is streamed as the child reads it,
// /dev/null when there is none. When its context ends, the whole group
// gets [Cmd.Signal] (SIGTERM) and, after a grace, SIGKILL; a launcher's
// own deadline ([Cmd.Deadline]) has its own signal and grace and never
// weakens that. When the child exits by itself, what it left in its group
// is ended the same way. Output a finished child wrote is never lost to a
// late reader: pipes are drained before they are closed, and [Run]
// reports [ErrOutputCut] when a process that escaped still held one.
// Statuses follow the shell: 126 not executable, 127 not found, 128+n
// killed by signal n. [LookPath] resolves a name through a given $PATH
// only, with the shell's 126/127 distinction.
//
// A [Sink] captures one output stream in bounded memory, cut at line
// boundaries, and spills the stream to a file once it outgrows its limit;
// the file keeps at most [DefaultSpillCap] bytes, the last ones. A [Log]
// is a file with the same bound, for a background job's output.
//
// What escapes every group (setsid, double forks) is reparented to init,
// unless the process opts in with [EnableSubreaper]: then it is reparented
// to this process, reaped when it exits, and ended when the [Window] of
// the call that may have started it closes, or by [EndOrphans].
//
// A child's umask is set without touching shelter's, which every session
// shares: on Linux it is started from an OS thread that has a file-system
// context (umask, working directory, root) of its own, one such thread a
// mask, kept for the life of the process. The thread outlives the child,
// as it must: a child's parent-death signal fires when the thread that
// started it exits.
//
// A child's resource limits are in place before its first instruction: on
// Linux a start with [Cmd.Limits] is traced (PTRACE_TRACEME), so the
// child stops right after its execve; the thread that forked it sets the
// limits with prlimit(2) and detaches it, and only then does the program
// run. Starts without limits are not traced. When ptrace is refused, the
// limits are set right after the start instead, as for a terminal's start
// and a set-user-ID program, and the program may run a moment under
// shelter's.
//
// A confined child ([Cmd.Confine], Linux) is held by the operating
// system to the paths, network and signals a [Confinement] names:
// Landlock, a network namespace of its own with loopback up, scoped
// signals and abstract sockets, no_new_privs and, for root, a reduced
// bounding set. Landlock restricts the thread that asks, so the child is
// started as the program's own executable run again, as spawn's helper:
// [Init], the first call of main, confines the thread it runs on and
// executes the program from it. [Probe] says what the host can enforce;
// a start the host cannot confine fails with [*ConfineError] unless the
// confinement settles for best effort. [Cmd.NoPtrace] keeps a child of
// root from the capabilities that read shelter's /proc entries.
//
// Other systems: spawn builds on macOS and the BSDs, where children get no
// parent-death signal, [Cmd.Umask] and [Cmd.Limits] are ignored (the child
// gets shelter's), [EnableSubreaper] returns an error and windows end
// nothing, and a terminal's output cannot be drained after the wait delay
// (it is closed, and [ErrOutputCut] reported).
//
// spawn imports nothing else of shelter's; the kernel and the plug-ins that
// run programs use it.
package spawn
