package bashcompat

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/spawn"
)

// ulimit as bash has it, for child processes: the limits a script sets
// live in a shell variable, ulimitVar (so that a subshell's stay in the
// subshell), and each child has them from its first instruction
// ([spawn.Cmd.Limits], from Rlimits). shelter itself never takes
// them on: it runs other sessions.
const ulimitVar = "SHELTER_ULIMIT"

// rlimitKind is one resource ulimit knows.
type rlimitKind struct {
	flag     byte
	resource int    // pipeSize for the pipe size, which is no limit
	unit     uint64 // bytes per unit of the value shown and given
	name     string // as `ulimit -a` shows it
	units    string
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

// rlimits are l for [spawn.Cmd.Limits], in the order of `ulimit -a`; nil
// when the script set none.
func (l sessionLimits) rlimits() []spawn.Rlimit {
	var out []spawn.Rlimit
	for _, k := range rlimitKinds {
		if r, ok := l[k.flag]; ok && k.resource != pipeSize {
			out = append(out, spawn.Rlimit{Resource: k.resource, Cur: r.Cur, Max: r.Max})
		}
	}
	return out
}

// Rlimits are the limits ulimit set in the shell whose variables env
// holds, for [spawn.Cmd.Limits], in the order of `ulimit -a`; nil when
// it set none.
func Rlimits(env expand.Environ) []spawn.Rlimit {
	return limitsOf(env.Get(ulimitVar).String()).rlimits()
}

// pipeSize is the resource of `ulimit -p`: the pipe buffer's atomic
// size, which bash shows and nothing sets.
const pipeSize = -1

// current is the limit of k a child would get now.
func (l sessionLimits) current(k rlimitKind) (rlimit, error) {
	if r, ok := l[k.flag]; ok {
		return r, nil
	}
	if k.resource == pipeSize {
		return rlimit{Cur: pipeBuf, Max: pipeBuf}, nil
	}
	return getrlimit(k.resource)
}

func showLimit(v uint64, k rlimitKind) string {
	if v == infinity {
		return "unlimited"
	}
	return strconv.FormatUint(v/k.unit, 10)
}

// ulimitOp is one resource flag of a ulimit command and the value it
// sets, if any: bash takes the rest of the flag's word or the next word
// that is not a flag (`ulimit -n64`, `ulimit -n 64 -c 0`).
type ulimitOp struct {
	kind     rlimitKind
	value    string
	hasValue bool
}

func ulimitCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	var soft, hard, all bool
	var ops []ulimitOp
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
					flags := []string{"-S", "-H", "-a"}
					for _, k := range rlimitKinds {
						flags = append(flags, "-"+string(k.flag))
					}
					return refuse(hc, refusal.Line("ulimit", "unknown flag "+refusal.Quote("-"+string(c)), flags))
				}
				op := ulimitOp{kind: k}
				switch {
				case i+1 < len(a):
					op.value, op.hasValue = a[i+1:], true
					i = len(a)
				case len(rest) > 0 && (rest[0] == "" || rest[0][0] != '-'):
					op.value, op.hasValue = rest[0], true
					rest = rest[1:]
				}
				ops = append(ops, op)
			}
		}
	}
	if n := len(ops); n > 0 && !ops[n-1].hasValue && len(rest) > 0 {
		// The word left after the options is the last resource's value,
		// as in bash: `ulimit -c -S 1000`, `ulimit -c -- 1000`.
		ops[n-1].value, ops[n-1].hasValue = rest[0], true
	}
	limits := limitsOf(hc.Env.Get(ulimitVar).String())
	if all {
		var b strings.Builder
		for _, k := range rlimitKinds {
			line, ok := showLimitLine(hc, limits, k, hard && !soft, true)
			if !ok {
				return StatusArgv(1)
			}
			b.WriteString(line)
		}
		return wrote(ctx, sh, hc, "ulimit", b.String(), 0)
	}
	if len(ops) == 0 {
		// Without a resource, -f, and the first word left is its value;
		// as in bash, words past the values are ignored.
		k, _ := rlimitOf('f')
		ops = []ulimitOp{{kind: k}}
		if len(rest) > 0 {
			ops[0].value, ops[0].hasValue = rest[0], true
		}
	}
	// Every value is checked before any is set.
	var out strings.Builder
	next, changed := limits, false
	for _, op := range ops {
		if !op.hasValue {
			line, ok := showLimitLine(hc, next, op.kind, hard && !soft, len(ops) > 1)
			if !ok {
				return StatusArgv(1)
			}
			out.WriteString(line)
			continue
		}
		if !childLimits {
			return refuse(hc, "ulimit: setting a limit needs Linux (each child gets it with prlimit); only reading works here")
		}
		r, ok := setLimit(hc, next, op, soft, hard)
		if !ok {
			return StatusArgv(1)
		}
		if !changed {
			next, changed = maps.Clone(limits), true
			if next == nil {
				next = sessionLimits{}
			}
		}
		next[op.kind.flag] = r
	}
	if !changed {
		return wrote(ctx, sh, hc, "ulimit", out.String(), 0)
	}
	src := assignScalar(ulimitVar, next.String())
	if out.Len() > 0 {
		src += "; builtin printf '%s' " + shast.Quote(out.String())
	}
	return sh.Eval(hc, src)
}

// showLimitLine is k's line of `ulimit` (its soft limit, or its hard one
// when hard is set), with the name and units when labelled; ok is false
// when the limit could not be read, which it says on stderr.
func showLimitLine(hc interp.HandlerContext, limits sessionLimits, k rlimitKind, hard, labelled bool) (string, bool) {
	r, err := limits.current(k)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "ulimit: %s: cannot get limit: %v\n", k.name, err)
		return "", false
	}
	v := r.Cur
	if hard {
		v = r.Max
	}
	if !labelled {
		return showLimit(v, k) + "\n", true
	}
	unit := fmt.Sprintf("(-%c) ", k.flag)
	if k.units != "" {
		unit = fmt.Sprintf("(%s, -%c) ", k.units, k.flag)
	}
	return fmt.Sprintf("%-20s %20s%s\n", k.name, unit, showLimit(v, k)), true
}

// setLimit is the limit of op.kind once op's value is set (the soft
// limit with -S, the hard one with -H, both without either); ok is false
// when the value is wrong or not allowed, which it says on stderr as
// bash does.
func setLimit(hc interp.HandlerContext, limits sessionLimits, op ulimitOp, soft, hard bool) (rlimit, bool) {
	k := op.kind
	r, err := limits.current(k)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "ulimit: %s: cannot get limit: %v\n", k.name, err)
		return rlimit{}, false
	}
	var v uint64
	switch op.value {
	case "unlimited":
		v = infinity
	case "soft":
		v = r.Cur
	case "hard":
		v = r.Max
	default:
		n, err := strconv.ParseUint(op.value, 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange):
			n = infinity
		case err != nil:
			fmt.Fprintf(hc.Stderr, "ulimit: %s: invalid number\n", op.value)
			return rlimit{}, false
		}
		v = n * k.unit
		if n != infinity && k.unit > 1 && v/k.unit != n {
			fmt.Fprintf(hc.Stderr, "ulimit: %s: limit out of range\n", op.value)
			return rlimit{}, false
		}
		if n == infinity {
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
	case k.resource < 0 || next.Cur > next.Max:
		fmt.Fprintf(hc.Stderr, "ulimit: %s: cannot modify limit: Invalid argument\n", k.name)
		return rlimit{}, false
	case next.Max > r.Max && !mayRaiseHardLimits():
		fmt.Fprintf(hc.Stderr, "ulimit: %s: cannot modify limit: Operation not permitted\n", k.name)
		return rlimit{}, false
	}
	return next, true
}
