// Package spawn is shelter's one discipline for running a child process
// and bounding what it prints.
//
// [Run] starts a [Cmd] with exactly the environment, working directory and
// standard streams it is given, in a process group of its own, with a
// parent-death signal, optionally on a pseudo-terminal ([Cmd.TTY]) and
// with a niceness ([Cmd.Nice]). Input is streamed as the child reads it,
// /dev/null when there is none. When its context ends, the whole group
// gets [Cmd.Signal] (SIGTERM) and, after a grace, SIGKILL; when the child
// exits by itself, what it left in its group is ended the same way.
// Statuses follow the shell: 126 not executable, 127 not found, 128+n
// killed by signal n. [LookPath] resolves a name through a given $PATH
// only, with the shell's 126/127 distinction. A [Sink] captures one output
// stream in bounded memory and spills the whole stream to a file once it
// outgrows its limit.
//
// spawn imports nothing else of shelter's; the kernel and the plug-ins that
// run programs use it.
package spawn
