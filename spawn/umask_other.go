//go:build !linux

package spawn

import "io/fs"

// startWithUmask runs start as is: other systems have no per-thread umask,
// and changing the process's would change it for every session.
func startWithUmask(_ fs.FileMode, start func() error) error {
	return start()
}
