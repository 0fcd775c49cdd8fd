package proctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Live lists the processes that run, from /proc; zombies run
// nothing and are left out.
func Live() []Process {
	entries, _ := os.ReadDir("/proc")
	var found []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name in parentheses: state is the
		// first, niceness the seventeenth.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 17 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		nice, _ := strconv.Atoi(fields[16])
		args := strings.TrimRight(strings.ReplaceAll(string(cmdline), "\x00", " "), " ")
		found = append(found, Process{PID: pid, Nice: nice, Args: args})
	}
	return found
}

// Alive reports whether process pid runs: it exists and is not a zombie
// waiting to be reaped (which a signal 0 would still find).
func Alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	state := stat[i+2]
	return state != 'Z' && state != 'X'
}
