//go:build !linux

package spawn

import "os/exec"

// Init returns at once: confinement is Linux's.
func Init() {}

// Probe reports that this system confines nothing.
func Probe() Support {
	if f := fakeSupport.Load(); f != nil {
		return *f
	}
	return Support{Why: []string{"confinement needs Linux (Landlock and namespaces)"}}
}

type confinedStart struct{}

// newConfinedStart fails a confined start, or runs it unconfined with
// best effort.
func newConfinedStart(c *Cmd) (*confinedStart, error) {
	if c.Confine == nil || c.Confine.BestEffort {
		return nil, nil
	}
	return nil, &ConfineError{Missing: []string{"files, the network and signals (confinement needs Linux)"}}
}

func (*confinedStart) start(_ *exec.Cmd, start func() error) error { return start() }
