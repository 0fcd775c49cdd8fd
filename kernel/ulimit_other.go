//go:build !linux

package kernel

import "golang.org/x/sys/unix"

// childLimits: without prlimit, a child's limits cannot be set from
// outside it, so ulimit only reads them.
const childLimits = false

// getrlimit is shelter's own limit of resource, which a child inherits.
func getrlimit(resource int) (rlimit, error) {
	var r unix.Rlimit
	err := unix.Getrlimit(resource, &r)
	return rlimit{Cur: uint64(r.Cur), Max: uint64(r.Max)}, err
}

func applyLimits(int, sessionLimits) {}
