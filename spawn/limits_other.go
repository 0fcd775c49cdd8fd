//go:build !linux

package spawn

import (
	"io/fs"
	"os/exec"
)

// startLimited starts cmd with umask and ignores limits: other systems
// have no prlimit(2), so a child's limits cannot be set from outside it.
func startLimited(cmd *exec.Cmd, umask *fs.FileMode, _ []Rlimit) error {
	return startUnder(umask, cmd.Start)
}

func setLimits(int, []Rlimit) {}
