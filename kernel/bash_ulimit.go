package kernel

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/interp"
)

// ulimit as bash has it, for child processes: the limits a script sets
// live in a shell variable, ulimitVar (so that a subshell's stay in the
// subshell), and each child gets them right after it starts
// (applyLimits), which leaves it a short window under shelter's own.
// shelter itself never takes them on: it runs other sessions.
const ulimitVar = "SHELTER_ULIMIT"

// rlimitKind is one resource ulimit knows.
type rlimitKind struct {
	flag     byte
	resource int
	unit     uint64 // bytes per unit of the value shown and given
	name     string // as `ulimit -a` shows it
	units    string
}

var rlimitKinds = []rlimitKind{
	{'c', unix.RLIMIT_CORE, 1024, "core file size", "blocks"},
	{'d', unix.RLIMIT_DATA, 1024, "data seg size", "kbytes"},
	{'f', unix.RLIMIT_FSIZE, 1024, "file size", "blocks"},
	{'n', unix.RLIMIT_NOFILE, 1, "open files", ""},
	{'s', unix.RLIMIT_STACK, 1024, "stack size", "kbytes"},
	{'t', unix.RLIMIT_CPU, 1, "cpu time", "seconds"},
	{'u', unix.RLIMIT_NPROC, 1, "max user processes", ""},
	{'v', unix.RLIMIT_AS, 1024, "virtual memory", "kbytes"},
}

func rlimitOf(flag byte) (rlimitKind, bool) {
	for _, k := range rlimitKinds {
		if k.flag == flag {
			return k, true
		}
	}
	return rlimitKind{}, false
}

const infinity = uint64(unix.RLIM_INFINITY)

// rlimit is a soft and a hard limit, in the kernel's units; systems
// differ in the integer type of unix.Rlimit.
type rlimit struct{ Cur, Max uint64 }

// sessionLimits are the limits the script set, by flag.
type sessionLimits map[byte]rlimit

// limitsOf reads ulimitVar: "n=SOFT:HARD c=…", each value in the
// resource's own units of the kernel (bytes, seconds, count).
func limitsOf(v string) sessionLimits {
	if v == "" {
		return nil
	}
	out := sessionLimits{}
	for f := range strings.FieldsSeq(v) {
		flag, val, ok := strings.Cut(f, "=")
		soft, hard, ok2 := strings.Cut(val, ":")
		s, err1 := strconv.ParseUint(soft, 10, 64)
		h, err2 := strconv.ParseUint(hard, 10, 64)
		if !ok || !ok2 || len(flag) != 1 || err1 != nil || err2 != nil {
			continue
		}
		out[flag[0]] = rlimit{Cur: s, Max: h}
	}
	return out
}

func (l sessionLimits) String() string {
	var parts []string
	for _, k := range rlimitKinds {
		if r, ok := l[k.flag]; ok {
			parts = append(parts, fmt.Sprintf("%c=%d:%d", k.flag, r.Cur, r.Max))
		}
	}
	return strings.Join(parts, " ")
}

// scriptLimits are the limits set in the shell running ctx's command.
func scriptLimits(ctx context.Context) sessionLimits {
	env, ok := handlerEnv(ctx)
	if !ok {
		return nil
	}
	return limitsOf(env.Get(ulimitVar).String())
}

// current is the limit of k a child would get now.
func (l sessionLimits) current(k rlimitKind) (rlimit, error) {
	if r, ok := l[k.flag]; ok {
		return r, nil
	}
	return getrlimit(k.resource)
}

func showLimit(v uint64, k rlimitKind) string {
	if v == infinity {
		return "unlimited"
	}
	return strconv.FormatUint(v/k.unit, 10)
}

func (s *Session) ulimitCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	var soft, hard, all bool
	var kinds []rlimitKind
	rest := args[1:]
	for len(rest) > 0 && len(rest[0]) > 1 && rest[0][0] == '-' {
		a := rest[0]
		rest = rest[1:]
		if a == "--" {
			break
		}
		for i := 1; i < len(a); i++ {
			switch c := a[i]; c {
			case 'S':
				soft = true
			case 'H':
				hard = true
			case 'a':
				all = true
			default:
				k, ok := rlimitOf(c)
				if !ok {
					var flags []string
					for _, k := range rlimitKinds {
						flags = append(flags, "-"+string(k.flag))
					}
					return refuse(hc, fmt.Sprintf("ulimit: unknown flag '-%c'; allowed: -S, -H, -a, %s", c, strings.Join(flags, ", ")))
				}
				kinds = append(kinds, k)
			}
		}
	}
	if len(rest) > 1 {
		fmt.Fprintln(hc.Stderr, "ulimit: too many arguments")
		return statusArgv(2)
	}
	limits := scriptLimits(ctx)
	if all || len(rest) == 0 {
		if all {
			kinds = rlimitKinds
		} else if len(kinds) == 0 {
			kinds = []rlimitKind{{}}
			kinds[0], _ = rlimitOf('f')
		}
		var b strings.Builder
		for _, k := range kinds {
			r, err := limits.current(k)
			if err != nil {
				fmt.Fprintf(hc.Stderr, "ulimit: %s: cannot get limit: %v\n", k.name, err)
				return statusArgv(1)
			}
			v := r.Cur
			if hard && !soft {
				v = r.Max
			}
			if len(kinds) > 1 {
				unit := fmt.Sprintf("(-%c) ", k.flag)
				if k.units != "" {
					unit = fmt.Sprintf("(%s, -%c) ", k.units, k.flag)
				}
				fmt.Fprintf(&b, "%-20s %20s", k.name, unit)
			}
			b.WriteString(showLimit(v, k) + "\n")
		}
		return printArgv(b.String())
	}
	if len(kinds) == 0 {
		kinds = []rlimitKind{{}}
		kinds[0], _ = rlimitOf('f')
	}
	k := kinds[len(kinds)-1]
	if !childLimits {
		return refuse(hc, "ulimit: setting a limit needs Linux (each child gets it with prlimit); only reading works here")
	}
	r, err := limits.current(k)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "ulimit: %s: cannot get limit: %v\n", k.name, err)
		return statusArgv(1)
	}
	var v uint64
	switch rest[0] {
	case "unlimited":
		v = infinity
	case "soft":
		v = r.Cur
	case "hard":
		v = r.Max
	default:
		n, err := strconv.ParseUint(rest[0], 10, 64)
		if err != nil {
			fmt.Fprintf(hc.Stderr, "ulimit: %s: invalid number\n", rest[0])
			return statusArgv(1)
		}
		v = n * k.unit
		if k.unit > 1 && v/k.unit != n {
			v = infinity
		}
	}
	next := r
	if soft || !hard {
		next.Cur = v
	}
	if hard || !soft {
		next.Max = v
	}
	switch {
	case next.Max > r.Max && os.Geteuid() != 0:
		fmt.Fprintf(hc.Stderr, "ulimit: %s: cannot modify limit: Operation not permitted\n", k.name)
		return statusArgv(1)
	case next.Cur > next.Max:
		fmt.Fprintf(hc.Stderr, "ulimit: %s: cannot modify limit: Invalid argument\n", k.name)
		return statusArgv(1)
	}
	if limits == nil {
		limits = sessionLimits{}
	}
	limits[k.flag] = next
	return assignArgv([]string{assignScalar(ulimitVar, limits.String())}, 0)
}
