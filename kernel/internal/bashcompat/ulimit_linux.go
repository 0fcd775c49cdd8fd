package bashcompat

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// childLimits: a child's limits can be set from outside it.
const childLimits = true

// rlimitKinds are the resources of bash's ulimit on Linux, in the order of
// `ulimit -a`.
var rlimitKinds = []rlimitKind{
	{'R', unix.RLIMIT_RTTIME, 1, "real-time non-blocking time", "microseconds"},
	{'c', unix.RLIMIT_CORE, 1024, "core file size", "blocks"},
	{'d', unix.RLIMIT_DATA, 1024, "data seg size", "kbytes"},
	{'e', unix.RLIMIT_NICE, 1, "scheduling priority", ""},
	{'f', unix.RLIMIT_FSIZE, 1024, "file size", "blocks"},
	{'i', unix.RLIMIT_SIGPENDING, 1, "pending signals", ""},
	{'l', unix.RLIMIT_MEMLOCK, 1024, "max locked memory", "kbytes"},
	{'m', unix.RLIMIT_RSS, 1024, "max memory size", "kbytes"},
	{'n', unix.RLIMIT_NOFILE, 1, "open files", ""},
	{'p', pipeSize, 512, "pipe size", "512 bytes"},
	{'q', unix.RLIMIT_MSGQUEUE, 1, "POSIX message queues", "bytes"},
	{'r', unix.RLIMIT_RTPRIO, 1, "real-time priority", ""},
	{'s', unix.RLIMIT_STACK, 1024, "stack size", "kbytes"},
	{'t', unix.RLIMIT_CPU, 1, "cpu time", "seconds"},
	{'u', unix.RLIMIT_NPROC, 1, "max user processes", ""},
	{'v', unix.RLIMIT_AS, 1024, "virtual memory", "kbytes"},
	{'x', unix.RLIMIT_LOCKS, 1, "file locks", ""},
}

// pipeBuf is PIPE_BUF, what bash shows as the pipe size.
const pipeBuf = 4096

// mayRaiseHardLimits reports whether shelter may raise a hard limit,
// its own or a child's: it takes CAP_SYS_RESOURCE, which root in a
// container often lacks.
func mayRaiseHardLimits() bool {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<unix.CAP_SYS_RESOURCE) != 0
		}
	}
	return false
}

// getrlimit is shelter's own limit of resource, which a child inherits.
func getrlimit(resource int) (rlimit, error) {
	var r unix.Rlimit
	err := unix.Getrlimit(resource, &r)
	return rlimit{Cur: r.Cur, Max: r.Max}, err
}
