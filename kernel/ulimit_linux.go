package kernel

import "golang.org/x/sys/unix"

// childLimits: a child's limits can be set from outside it.
const childLimits = true

// getrlimit is shelter's own limit of resource, which a child inherits.
func getrlimit(resource int) (rlimit, error) {
	var r unix.Rlimit
	err := unix.Getrlimit(resource, &r)
	return rlimit{Cur: r.Cur, Max: r.Max}, err
}

// applyLimits gives the process pid the limits a script set; best
// effort, as the child may already have ended.
func applyLimits(pid int, limits sessionLimits) {
	for _, k := range rlimitKinds {
		if r, ok := limits[k.flag]; ok {
			unix.Prlimit(pid, k.resource, &unix.Rlimit{Cur: r.Cur, Max: r.Max}, nil)
		}
	}
}
