package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// liveWith lists the command lines of the running processes (zombies
// left out) that contain marker, from /proc.
func liveWith(marker string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
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
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 || i+3 > len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
			continue
		}
		args := strings.TrimRight(strings.ReplaceAll(string(cmdline), "\x00", " "), " ")
		if strings.Contains(args, marker) {
			found = append(found, e.Name()+" "+args)
		}
	}
	return found
}
