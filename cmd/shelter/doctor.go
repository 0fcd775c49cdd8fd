package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/spawn"
)

// runDoctor is shelter doctor: what the host lets --confine enforce.
func runDoctor(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		io.WriteString(stdout, usage("doctor"))
		return 0
	}
	if len(args) > 0 {
		return refuse(stderr, "shelter doctor", "unexpected argument "+refusal.Quote(args[0]))
	}
	s := spawn.Probe()
	line := func(what string, ok bool, detail string) {
		mark := "yes"
		if !ok {
			mark = "NO "
		}
		fmt.Fprintf(stdout, "%-26s %s  %s\n", what, mark, detail)
	}
	ll := s.Landlock
	line("files (Landlock)", ll >= 1, fmt.Sprintf("Landlock ABI %d", ll))
	line("network (namespaces)", s.NetNS, "a network namespace per program start, loopback up")
	line("network fallback (TCP)", ll >= 4, "Landlock refuses TCP where namespaces are not had (ABI 4)")
	line("signals, abstract sockets", ll >= 6, "Landlock scopes (ABI 6)")
	line("no_new_privs", true, "always")
	root := "a confined program of root keeps only CAP_CHOWN, CAP_FOWNER, CAP_KILL, CAP_SETUID, CAP_SETGID, CAP_NET_BIND_SERVICE, CAP_AUDIT_WRITE"
	if os.Geteuid() != 0 {
		root = "not root: programs hold no capability"
	} else if !s.Caps {
		root = "root without CAP_SETPCAP: programs keep root's capabilities"
	}
	line("privileges", s.Caps, root)
	for _, why := range s.Why {
		fmt.Fprintf(stdout, "why: %s\n", why)
	}
	if missing := s.Missing(false); len(missing) > 0 {
		fmt.Fprintf(stdout, "--confine on refuses to start programs here; --confine best-effort runs them without: %s\n", strings.Join(missing, ", "))
		return 1
	}
	fmt.Fprintln(stdout, "--confine on holds every program on this host")
	return 0
}
