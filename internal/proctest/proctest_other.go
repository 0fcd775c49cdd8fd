//go:build !linux

package proctest

import (
	"os/exec"
	"strconv"
	"strings"
)

// Live lists the processes that run, from ps (there is no /proc
// here); zombies run nothing and are left out.
func Live() []Process {
	out, err := exec.Command("ps", "-A", "-o", "pid=,nice=,stat=,args=").Output()
	if err != nil {
		return nil
	}
	var found []Process
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
		found = append(found, Process{PID: pid, Nice: nice, Args: strings.Join(f[3:], " ")})
	}
	return found
}
