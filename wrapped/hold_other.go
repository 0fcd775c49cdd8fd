//go:build !linux

package wrapped

import "os"

// heldPaths are a plan's path_under words as the program gets them.
type heldPaths struct {
	argv  []string
	files []*os.File
}

func (h *heldPaths) close() {}

// holdUnder hands the program the checked paths, held or not: without
// openat2(2) nothing keeps a directory from being swapped for a symlink
// between the check and the program's own open (docs/wrapped_command.md).
func holdUnder(plan *Plan, confined bool) (*heldPaths, error) {
	return &heldPaths{argv: plan.Argv}, nil
}
