package kernel

import "golang.org/x/sys/unix"

// nonDumpable makes the process non-dumpable (PR_SET_DUMPABLE 0): its
// /proc entries (environ, fd/, mem, …) belong to root and a process
// without CAP_SYS_PTRACE, a session's children included, cannot read
// them; nor can a debugger attach to it. No core file is written either.
func nonDumpable() { unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
