//go:build !linux

package spawn

// startOnThread runs start as is: other systems have no per-thread umask
// or bounding set, and changing the process's would change it for every
// session.
func startOnThread(_ thread, start func() error) error {
	return start()
}

func (thread) special() bool { return false }
