//go:build !linux

package kernel

import (
	"os/exec"
	"strconv"
	"strings"
)

// LiveProcess is a process the tests look for by its command line.
type LiveProcess struct {
	PID  int
	Nice int
	// Args is the command line, its arguments joined by spaces.
	Args string
}

// LiveProcesses lists the processes that run, from ps (there is no /proc
// here); zombies run nothing and are left out.
func LiveProcesses() []LiveProcess {
	out, err := exec.Command("ps", "-A", "-o", "pid=,nice=,stat=,args=").Output()
	if err != nil {
		return nil
	}
	var found []LiveProcess
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 4 || strings.HasPrefix(f[2], "Z") {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			continue
		}
		nice, _ := strconv.Atoi(f[1])
		found = append(found, LiveProcess{PID: pid, Nice: nice, Args: strings.Join(f[3:], " ")})
	}
	return found
}
