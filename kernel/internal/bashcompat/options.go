package bashcompat

import (
	"context"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// set and shopt are answered here for the options, as bash 5.2 answers
// them; mvdan/sh knows a few of bash's options, refuses the others and
// lists its own in its own layout. shelter knows all of bash's: set -o and
// set +o list set's in bash's text, shopt lists, prints (-p) and queries
// (-q, or a name's status) shopt's, and set and shopt turn every option on
// and off. mvdan/sh's own options (optionState's mvdanOption) are still
// set by mvdan/sh's set and shopt, which apply them; the state of the
// others is kept in OptionsVar, where what shelter implements of them
// reads it. Most change nothing in shelter: the options of interactive
// shells, and those docs/embedding.md lists as known gaps.

// setCall answers set's options and hands mvdan/sh's own, and the
// positional parameters, to mvdan/sh's set; set alone lists the
// variables and functions (setListing).
func setCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	if len(args) == 1 {
		return setListing(ctx, sh, hc)
	}
	st := stateOf(sh, hc)
	held := st.held
	var out strings.Builder
	next := []string{"set"} // mvdan/sh's set, for its options and the parameters
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a == "-" {
			st = st.set(verboseOption, false) // and mvdan/sh's set - turns off -x
		}
		if a == "-" || a == "--" || len(a) < 2 || a[0] != '-' && a[0] != '+' {
			break
		}
		on := a[0] == '-'
		for _, c := range []byte(a[1:]) {
			var opt shellOption
			var ok bool
			switch {
			case c == 'o' && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-") || strings.HasPrefix(args[i+1], "+")):
				listSetOptions(&out, st, !on)
				continue
			case c == 'o':
				i++
				if opt, ok = findOption(setOptions, args[i]); !ok {
					fmt.Fprintf(hc.Stderr, "set: %s: invalid option name\n", args[i])
					return StatusArgv(2)
				}
			default:
				if opt, ok = setOptionByFlag(c); !ok {
					fmt.Fprintf(hc.Stderr, "set: %c%c: invalid option\n", a[0], c)
					return StatusArgv(2)
				}
			}
			if mvdanOption(opt.name) {
				next = append(next, a[:1]+"o", opt.name)
			} else {
				st = st.set(opt, on)
			}
		}
	}
	next = append(next, args[i:]...)
	if len(next) == 1 {
		next = nil // nothing left to hand on: set alone lists the variables
	}
	return applyOptions(ctx, sh, hc, "set", out.String(), held, st, next, 0)
}

// noclobberOption is set -C, which the session's opens for > read once
// it was ever on (Shell.NoclobberUsed).
var noclobberOption, _ = findOption(setOptions, "noclobber")

// verboseOption is set -v, which set - turns off.
var verboseOption, _ = findOption(setOptions, "verbose")

func setOptionByFlag(c byte) (shellOption, bool) {
	for _, opt := range setOptions {
		if opt.flag == c {
			return opt, true
		}
	}
	return shellOption{}, false
}

// listSetOptions writes set -o's listing, or set +o's (reinput).
func listSetOptions(b *strings.Builder, st optionState, reinput bool) {
	for _, opt := range setOptions {
		writeOption(b, "set", opt.name, st.on(opt), reinput)
	}
}

// writeOption writes one line of a listing: bash's table, or the command
// that sets the option again (reinput) — cmd set or shopt.
func writeOption(b *strings.Builder, cmd, name string, on, reinput bool) {
	switch {
	case !reinput:
		state := "off"
		if on {
			state = "on"
		}
		fmt.Fprintf(b, "%-15s\t%s\n", name, state)
	case cmd == "set" && on:
		fmt.Fprintf(b, "set -o %s\n", name)
	case cmd == "set":
		fmt.Fprintf(b, "set +o %s\n", name)
	case on:
		fmt.Fprintf(b, "shopt -s %s\n", name)
	default:
		fmt.Fprintf(b, "shopt -u %s\n", name)
	}
}

// shoptCall answers shopt: its listings, -p, -q and a name's status, and
// -s and -u of every option; mvdan/sh's shopt (or its set, for -o) sets
// mvdan/sh's own.
func shoptCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	var mode byte // 's', 'u' or 0
	var print, quiet, setNames bool
	i := 1
	for ; i < len(args) && len(args[i]) > 1 && args[i][0] == '-'; i++ {
		if args[i] == "--" {
			i++
			break
		}
		for _, c := range []byte(args[i][1:]) {
			switch c {
			case 's', 'u':
				if mode != 0 && mode != c {
					fmt.Fprintln(hc.Stderr, "shopt: cannot set and unset shell options simultaneously")
					return StatusArgv(1)
				}
				mode = c
			case 'p':
				print = true
			case 'q':
				quiet = true
			case 'o':
				setNames = true
			default:
				fmt.Fprintf(hc.Stderr, "shopt: -%c: invalid option\n", c)
				return StatusArgv(2)
			}
		}
	}
	names := args[i:]
	table, cmd, reinput := shoptOptions, "shopt", print
	if setNames {
		table, cmd = setOptions, "set"
	}
	st := stateOf(sh, hc)
	held := st.held
	var out strings.Builder
	status := 0
	if len(names) == 0 {
		for _, opt := range table {
			if on := st.on(opt); !quiet && (mode == 0 || on == (mode == 's')) {
				writeOption(&out, cmd, opt.name, on, reinput)
			}
		}
		return wrote(ctx, sh, hc, "shopt", out.String(), 0)
	}
	next := []string{"shopt", "-" + string(mode)}
	if setNames {
		next = []string{"set"}
	}
	for _, name := range names {
		opt, ok := findOption(table, name)
		switch {
		case !ok && setNames:
			fmt.Fprintf(hc.Stderr, "shopt: %s: invalid option name\n", name)
			if mode == 0 { // bash's status is 0 for an unknown name with -s and -u
				status = 1
			}
		case !ok:
			fmt.Fprintf(hc.Stderr, "shopt: %s: invalid shell option name\n", name)
			status = 1
		case mode == 0:
			on := st.on(opt)
			if !on {
				status = 1
			}
			if !quiet {
				writeOption(&out, cmd, name, on, reinput)
			}
		case mvdanOption(name) && setNames:
			next = append(next, "-o", name)
			if mode == 'u' {
				next[len(next)-2] = "+o"
			}
		case mvdanOption(name):
			next = append(next, name)
		default:
			st = st.set(opt, mode == 's')
		}
	}
	if len(next) == 2 && !setNames || len(next) == 1 {
		next = nil
	}
	return applyOptions(ctx, sh, hc, "shopt", out.String(), held, st, next, status)
}

// applyOptions ends set and shopt: it writes out, keeps st's options in
// OptionsVar when they are not held's any more, and runs next (mvdan/sh's
// set or shopt; none when nil), then exits with status.
func applyOptions(ctx context.Context, sh Shell, hc interp.HandlerContext, name, out, held string, st optionState, next []string, status int) []string {
	if st.held != held && st.on(noclobberOption) {
		sh.NoclobberUsed()
	}
	if written := writeOut(ctx, sh, hc, name, out); written != 0 {
		return wroteArgv(sh, hc, written, status)
	}
	if st.held == held && status == 0 {
		if next == nil {
			return wroteArgv(sh, hc, 0, 0)
		}
		return next
	}
	var src []string
	if st.held != held {
		src = append(src, assignScalar(OptionsVar, st.held))
	}
	if next != nil {
		quoted := make([]string, len(next))
		for i, w := range next {
			quoted[i] = shast.Quote(w)
		}
		src = append(src, strings.Join(quoted, " "))
	}
	if status != 0 {
		src = append(src, shast.Quote(shast.StatusWord)+fmt.Sprintf(" %d", status))
	}
	return sh.Eval(hc, strings.Join(src, "; "))
}

// OptionsCall answers shast.CmdOptions NAME: it prints what bash's
// SHELLOPTS (set -o's options that are on) or BASHOPTS (shopt's) holds,
// colon-separated, for the $SHELLOPTS or $BASHOPTS the rewrites turned
// into a command substitution (docs/mvdan.md, "Option variables").
func OptionsCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	table := setOptions
	if len(args) > 1 && args[1] == "BASHOPTS" {
		table = shoptOptions
	}
	st := stateOf(sh, hc)
	var on []string
	for _, opt := range table {
		if st.on(opt) {
			on = append(on, opt.name)
		}
	}
	return wrote(ctx, sh, hc, "shell", strings.Join(on, ":")+"\n", 0)
}
