package kernel

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/interp"
)

// umask as bash has it, for the files the shell itself creates: the
// session's opener applies it to every redirection. The mask lives in a
// shell variable, umaskVar, so that a subshell's umask stays in the
// subshell. It cannot reach child processes: a process's umask is the
// whole process's, and shelter runs many sessions in one, so children
// inherit shelter's own umask whatever the session says.
const umaskVar = "SHELTER_UMASK"

// processUmask is shelter's own umask, read once; reading it with
// syscall.Umask would change it for a moment under the other sessions.
var processUmask = sync.OnceValue(func() fs.FileMode {
	data, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for line := range strings.Lines(string(data)) {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return fs.FileMode(n) & 0o777
				}
			}
		}
	}
	return 0o022
})

// sessionUmask is the mask umask set in the shell that runs ctx's command;
// ok is false when the script never set one.
func sessionUmask(ctx context.Context) (fs.FileMode, bool) {
	env, ok := handlerEnv(ctx)
	if !ok {
		return 0, false
	}
	v := env.Get(umaskVar)
	if !v.IsSet() {
		return 0, false
	}
	n, err := strconv.ParseUint(v.String(), 8, 32)
	if err != nil {
		return 0, false
	}
	return fs.FileMode(n) & 0o777, true
}

func (s *Session) umaskCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	var symbolic, reusable bool
	rest := args[1:]
	for len(rest) > 0 && len(rest[0]) > 1 && rest[0][0] == '-' {
		a := rest[0]
		rest = rest[1:]
		if a == "--" {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'S':
				symbolic = true
			case 'p':
				reusable = true
			default:
				fmt.Fprintf(hc.Stderr, "umask: -%c: invalid option\numask: usage: umask [-p] [-S] [mode]\n", c)
				return statusArgv(2)
			}
		}
	}
	mask, set := sessionUmask(ctx)
	if !set {
		mask = processUmask()
	}
	if len(rest) == 0 {
		out := fmt.Sprintf("%04o", uint32(mask))
		if symbolic {
			out = symbolicUmask(mask)
		}
		if reusable {
			if symbolic {
				out = "umask -S " + out
			} else {
				out = "umask " + out
			}
		}
		return printArgv(out + "\n")
	}
	mode := rest[0]
	var next fs.FileMode
	if mode != "" && mode[0] >= '0' && mode[0] <= '9' {
		n, err := strconv.ParseUint(mode, 8, 32)
		if err != nil || n > 0o777 {
			fmt.Fprintf(hc.Stderr, "umask: %s: octal number out of range\n", mode)
			return statusArgv(1)
		}
		next = fs.FileMode(n)
	} else {
		m, ok := parseSymbolicUmask(mode, mask)
		if !ok {
			fmt.Fprintf(hc.Stderr, "umask: '%c': invalid symbolic mode operator\n", badSymbol(mode))
			return statusArgv(1)
		}
		next = m
	}
	assign := assignScalar(umaskVar, fmt.Sprintf("%04o", uint32(next)))
	if symbolic {
		return []string{"eval", assign + "; builtin printf '%s\\n' " + quoteWord(symbolicUmask(next))}
	}
	return assignArgv([]string{assign}, 0)
}

// symbolicUmask is `umask -S`: what the mask lets through.
func symbolicUmask(mask fs.FileMode) string {
	allowed := ^mask & 0o777
	var parts []string
	for i, who := range []string{"u", "g", "o"} {
		bits := allowed >> (6 - 3*i) & 7
		p := who + "="
		if bits&4 != 0 {
			p += "r"
		}
		if bits&2 != 0 {
			p += "w"
		}
		if bits&1 != 0 {
			p += "x"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ",")
}

// parseSymbolicUmask applies a symbolic mode (u=rwx,g+w,o-r…) to mask; it
// names the permissions let through, as chmod would set them.
func parseSymbolicUmask(mode string, mask fs.FileMode) (fs.FileMode, bool) {
	allowed := ^mask & 0o777
	for clause := range strings.SplitSeq(mode, ",") {
		i := 0
		var who fs.FileMode
		for ; i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0; i++ {
			switch clause[i] {
			case 'u':
				who |= 0o700
			case 'g':
				who |= 0o070
			case 'o':
				who |= 0o007
			case 'a':
				who |= 0o777
			}
		}
		if who == 0 {
			who = 0o777
		}
		if i == len(clause) {
			return 0, false
		}
		for i < len(clause) {
			op := clause[i]
			if op != '=' && op != '+' && op != '-' {
				return 0, false
			}
			i++
			var perm fs.FileMode
			for ; i < len(clause) && strings.IndexByte("rwxXst", clause[i]) >= 0; i++ {
				switch clause[i] {
				case 'r':
					perm |= 0o444
				case 'w':
					perm |= 0o222
				case 'x', 'X':
					perm |= 0o111
				}
			}
			perm &= who
			switch op {
			case '=':
				allowed = allowed&^who | perm
			case '+':
				allowed |= perm
			case '-':
				allowed &^= perm
			}
		}
	}
	return ^allowed & 0o777, true
}

// badSymbol is the character bash names when a symbolic mode is wrong.
func badSymbol(mode string) byte {
	for i := 0; i < len(mode); i++ {
		if strings.IndexByte("ugoa=+-rwxXst,", mode[i]) < 0 {
			return mode[i]
		}
	}
	if mode == "" {
		return ' '
	}
	return mode[len(mode)-1]
}
