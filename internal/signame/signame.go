// Package signame reads and names signals as bash does: the kernel's trap
// and the builtins' kill and timeout share it.
package signame

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Parse reads a signal as a number (0 to 64), a name (TERM) or a name
// with SIG (SIGTERM), in any case.
func Parse(s string) (syscall.Signal, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 0 && n < 65 {
			return syscall.Signal(n), true
		}
		return 0, false
	}
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if sig := unix.SignalNum(name); sig != 0 {
		return sig, true
	}
	return 0, false
}

// names are Linux's signal names as bash's kill -l prints them.
var names = map[int]string{
	1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 5: "TRAP", 6: "ABRT", 7: "BUS", 8: "FPE",
	9: "KILL", 10: "USR1", 11: "SEGV", 12: "USR2", 13: "PIPE", 14: "ALRM", 15: "TERM",
	16: "STKFLT", 17: "CHLD", 18: "CONT", 19: "STOP", 20: "TSTP", 21: "TTIN", 22: "TTOU",
	23: "URG", 24: "XCPU", 25: "XFSZ", 26: "VTALRM", 27: "PROF", 28: "WINCH", 29: "IO",
	30: "PWR", 31: "SYS",
}

// Name is the name of signal n without SIG, "" when there is none.
func Name(n int) string {
	switch {
	case n == 34:
		return "RTMIN"
	case n > 34 && n <= 49:
		return fmt.Sprintf("RTMIN+%d", n-34)
	case n >= 50 && n < 64:
		return fmt.Sprintf("RTMAX-%d", 64-n)
	case n == 64:
		return "RTMAX"
	}
	return names[n]
}

// Table is kill -l's table, byte for byte bash's.
func Table() string {
	var b strings.Builder
	col := 0
	for n := 1; n <= 64; n++ {
		name := Name(n)
		if name == "" {
			continue
		}
		fmt.Fprintf(&b, "%2d) SIG%s", n, name)
		col++
		if col%5 == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte('\t')
		}
	}
	if col%5 != 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// Title is a job's state after the signal ended it, as bash's jobs
// prints it: Terminated, Killed, or the name without SIG.
func Title(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "Terminated"
	case syscall.SIGKILL:
		return "Killed"
	}
	if name := unix.SignalName(sig); name != "" {
		return strings.TrimPrefix(name, "SIG")
	}
	return fmt.Sprintf("Signal %d", int(sig))
}
