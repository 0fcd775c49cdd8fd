package bashcompat

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// umask as bash has it: the session's opener applies it to every file a
// redirection creates, and each child process starts with it
// ([spawn.Cmd.Umask], from Umask). shelter's own umask never
// changes, as it runs many sessions in one process: on Linux a child is
// started from a thread with a umask of its own; elsewhere children get
// shelter's whatever the session says. The mask lives in a shell
// variable, umaskVar, so that a subshell's umask stays in the subshell,
// its pipeline stages and background jobs included.
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

// Umask is the mask umask set in the shell whose variables env holds; ok
// is false when the script never set one.
func Umask(env expand.Environ) (mask fs.FileMode, ok bool) {
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

func umaskCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	fa := parseFlags(args[1:], "Sp", "")
	if fa.bad != "" {
		fmt.Fprintf(hc.Stderr, "umask: %s: invalid option\numask: usage: umask [-p] [-S] [mode]\n", fa.bad)
		return StatusArgv(2)
	}
	var symbolic, reusable bool
	for _, f := range fa.flags {
		symbolic = symbolic || f.name == 'S'
		reusable = reusable || f.name == 'p'
	}
	rest := fa.rest
	mask, set := Umask(hc.Env)
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
		return wrote(ctx, sh, hc, "umask", out+"\n", 0)
	}
	mode := rest[0]
	var next fs.FileMode
	if mode != "" && mode[0] >= '0' && mode[0] <= '9' {
		n, err := strconv.ParseUint(mode, 8, 32)
		if err != nil || n > 0o7777 {
			fmt.Fprintf(hc.Stderr, "umask: %s: octal number out of range\n", mode)
			return StatusArgv(1)
		}
		next = fs.FileMode(n) & 0o777 // bash takes setuid, setgid and sticky bits and drops them
	} else {
		m, bad := parseSymbolicUmask(mode, mask)
		if bad != "" {
			fmt.Fprintln(hc.Stderr, bad)
			return StatusArgv(1)
		}
		next = m
	}
	assign := assignScalar(umaskVar, fmt.Sprintf("%04o", uint32(next)))
	if symbolic {
		return sh.Eval(hc, assign+"; builtin printf '%s\\n' "+shast.Quote(symbolicUmask(next)))
	}
	return assignArgv(sh, hc, []string{assign}, 0)
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

// parseSymbolicUmask applies a symbolic mode (u=rwx,g+w,o-r…) to mask as
// bash does: each clause is who (ugoa, all when empty), one operator and
// permissions from rwx; what it names is let through. A wrong mode
// returns the line bash prints for it.
func parseSymbolicUmask(mode string, mask fs.FileMode) (fs.FileMode, string) {
	allowed := ^mask & 0o777
	for i := 0; ; {
		var who fs.FileMode
		for ; i < len(mode) && strings.IndexByte("ugoa", mode[i]) >= 0; i++ {
			who |= map[byte]fs.FileMode{'u': 0o700, 'g': 0o070, 'o': 0o007, 'a': 0o777}[mode[i]]
		}
		if who == 0 {
			who = 0o777
		}
		op := byte(' ')
		if i < len(mode) {
			op = mode[i]
			i++
		}
		if op != '=' && op != '+' && op != '-' {
			return 0, fmt.Sprintf("umask: '%c': invalid symbolic mode operator", op)
		}
		var perm fs.FileMode
		for ; i < len(mode) && strings.IndexByte("rwx", mode[i]) >= 0; i++ {
			perm |= map[byte]fs.FileMode{'r': 0o444, 'w': 0o222, 'x': 0o111}[mode[i]]
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
		switch {
		case i == len(mode):
			return ^allowed & 0o777, ""
		case mode[i] == ',':
			i++
		default:
			return 0, fmt.Sprintf("umask: '%c': invalid symbolic mode character", mode[i])
		}
	}
}
