//go:build !linux

package spawn

import "os/exec"

// startLimited starts cmd with umask and ignores limits: other systems
// have no prlimit(2), so a child's limits cannot be set from outside it.
func startLimited(cmd *exec.Cmd, t thread, _ []Rlimit) error {
	return startUnder(t, cmd.Start)
}

func setLimits(int, []Rlimit) {}
