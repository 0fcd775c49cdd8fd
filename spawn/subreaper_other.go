//go:build !linux

package spawn

import (
	"errors"
	"time"
)

// EnableSubreaper is Linux only; elsewhere it returns an error and
// orphans go to init.
func EnableSubreaper() error {
	return errors.New("spawn: a child subreaper needs Linux")
}

func watchOrphans() {}

func bootTicks() uint64 { return 0 }

func endOrphans(func(started uint64) bool, time.Duration) {}
