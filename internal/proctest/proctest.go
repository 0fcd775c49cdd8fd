// Package proctest lists the running processes, for tests that check
// what a script left behind: from /proc on Linux, from ps elsewhere.
package proctest

import "strings"

// Process is a process the tests look for by its command line.
type Process struct {
	PID  int
	Nice int
	// Args is the command line, its arguments joined by spaces.
	Args string
}

// With lists the live processes whose command line contains marker.
func With(marker string) []Process {
	var found []Process
	for _, p := range Live() {
		if strings.Contains(p.Args, marker) {
			found = append(found, p)
		}
	}
	return found
}
