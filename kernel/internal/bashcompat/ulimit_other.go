//go:build !linux

package bashcompat

import (
	"os"

	"golang.org/x/sys/unix"
)

// childLimits: without prlimit, a child's limits cannot be set from
// outside it, so ulimit only reads them.
const childLimits = false

// rlimitKinds are the resources of bash's ulimit that every system
// shelter builds for has, in the order of `ulimit -a`.
var rlimitKinds = []rlimitKind{
	{'c', unix.RLIMIT_CORE, 1024, "core file size", "blocks"},
	{'d', unix.RLIMIT_DATA, 1024, "data seg size", "kbytes"},
	{'f', unix.RLIMIT_FSIZE, 1024, "file size", "blocks"},
	{'l', unix.RLIMIT_MEMLOCK, 1024, "max locked memory", "kbytes"},
	{'m', unix.RLIMIT_RSS, 1024, "max memory size", "kbytes"},
	{'n', unix.RLIMIT_NOFILE, 1, "open files", ""},
	{'p', pipeSize, 512, "pipe size", "512 bytes"},
	{'s', unix.RLIMIT_STACK, 1024, "stack size", "kbytes"},
	{'t', unix.RLIMIT_CPU, 1, "cpu time", "seconds"},
	{'u', unix.RLIMIT_NPROC, 1, "max user processes", ""},
	{'v', unix.RLIMIT_AS, 1024, "virtual memory", "kbytes"},
}

// pipeBuf is PIPE_BUF, what bash shows as the pipe size.
const pipeBuf = 512

// mayRaiseHardLimits: only root may raise a hard limit (and no limit is
// set here anyway).
func mayRaiseHardLimits() bool { return os.Geteuid() == 0 }

// getrlimit is shelter's own limit of resource, which a child inherits.
func getrlimit(resource int) (rlimit, error) {
	var r unix.Rlimit
	err := unix.Getrlimit(resource, &r)
	return rlimit{Cur: uint64(r.Cur), Max: uint64(r.Max)}, err
}
