package bashcompat

import (
	"context"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// set and shopt accept the options of bash's usual strict-mode lines that
// mvdan/sh refuses, where what mvdan/sh does already is what the option
// asks for or the option changes nothing without a terminal:
//
//   - set -E (errtrace): mvdan/sh runs the ERR trap in functions and
//     subshells already; set -T (functrace) governs the DEBUG and RETURN
//     traps, which shelter refuses.
//   - shopt -s inherit_errexit: $( ) keeps set -e in mvdan/sh already;
//     shopt -s lastpipe: a pipeline's last command already runs in the
//     current shell.
//   - the options of interactive shells (history, completion, the
//     terminal's size…), either way.
//
// Without these, `set -Eeuo pipefail` failed with status 2 and, under
// set -e, `shopt -s inherit_errexit` ended the script. The options are
// dropped from the words; mvdan/sh's set and shopt do the rest. $- and
// set -o do not show them.

// setCall is set with E and T taken out of its flags and errtrace and
// functrace out of its -o and +o.
func setCall(_ context.Context, sh Shell, _ interp.HandlerContext, args []string) []string {
	out := args[:1:1]
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || len(a) < 2 || a[0] != '-' && a[0] != '+' {
			return append(out, args[i:]...) // the parameters
		}
		flags := strings.Map(dropTraceFlag, a[1:])
		var name []string // the option -o names, when the flags end with o
		if strings.HasSuffix(flags, "o") && i+1 < len(args) {
			i++
			if args[i] == "errtrace" || args[i] == "functrace" {
				flags = flags[:len(flags)-1]
			} else {
				name = args[i : i+1]
			}
		}
		if flags != "" {
			out = append(out, a[:1]+flags)
		}
		out = append(out, name...)
	}
	if len(out) == 1 && len(args) > 1 {
		return StatusArgv(0) // only options mvdan/sh lacks
	}
	return out
}

func dropTraceFlag(r rune) rune {
	if r == 'E' || r == 'T' {
		return -1
	}
	return r
}

// shoptCall is shopt with the options of acceptedShopts taken out of -s
// and -u.
func shoptCall(_ context.Context, sh Shell, _ interp.HandlerContext, args []string) []string {
	if len(args) < 3 || args[1] != "-s" && args[1] != "-u" {
		return args
	}
	out := args[:2:2]
	for _, name := range args[2:] {
		if on, ok := acceptedShopts[name]; !ok || args[1] == "-u" && on {
			out = append(out, name)
		}
	}
	if len(out) == 2 {
		return StatusArgv(0)
	}
	return out
}

// acceptedShopts are the shopt options mvdan/sh lacks that shelter takes
// and does nothing for; true marks those that only -s may name, as
// mvdan/sh behaves as if they were set.
var acceptedShopts = map[string]bool{
	"inherit_errexit": true, "lastpipe": true,
	"autocd": false, "cdspell": false, "checkhash": false, "checkjobs": false,
	"checkwinsize": false, "cmdhist": false, "complete_fullquote": false,
	"direxpand": false, "dirspell": false, "extquote": false, "force_fignore": false,
	"gnu_errfmt": false, "histappend": false, "histreedit": false, "histverify": false,
	"hostcomplete": false, "huponexit": false, "interactive_comments": false,
	"lithist": false, "mailwarn": false, "no_empty_cmd_completion": false,
	"progcomp": false, "progcomp_alias": false, "promptvars": false,
}
