package bashcompat

import (
	"context"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
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
func setCall(_ context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	out := args[:1:1]
	noclobber := 0 // 1 on, -1 off
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || len(a) < 2 || a[0] != '-' && a[0] != '+' {
			out = append(out, args[i:]...) // the parameters
			break
		}
		flags := strings.Map(dropTraceFlag, a[1:])
		if strings.ContainsRune(flags, 'C') {
			flags = strings.ReplaceAll(flags, "C", "")
			noclobber = onOff(a)
		}
		var name []string // the option -o names, when the flags end with o
		if strings.HasSuffix(flags, "o") && i+1 < len(args) {
			i++
			switch args[i] {
			case "errtrace", "functrace":
				flags = flags[:len(flags)-1]
			case "noclobber":
				flags = flags[:len(flags)-1]
				noclobber = onOff(a)
			default:
				name = args[i : i+1]
			}
		}
		if flags != "" {
			out = append(out, a[:1]+flags)
		}
		out = append(out, name...)
	}
	if noclobber != 0 {
		return setNoclobber(sh, hc, noclobber > 0, out)
	}
	if len(out) == 1 && len(args) > 1 {
		return StatusArgv(0) // only options mvdan/sh lacks
	}
	return out
}

// onOff is 1 for an option word that sets (-C), -1 for one that unsets.
func onOff(word string) int {
	if word[0] == '+' {
		return -1
	}
	return 1
}

// setNoclobber is set -C (on) or set +C: shast.NoclobberVar, in the
// shell's scope, then the rest of set's words, out.
func setNoclobber(sh Shell, hc interp.HandlerContext, on bool, out []string) []string {
	src := "unset " + shast.NoclobberVar
	if on {
		sh.NoclobberUsed()
		src = shast.NoclobberVar + "=1"
	}
	if len(out) > 1 {
		quoted := make([]string, len(out))
		for i, w := range out {
			quoted[i] = shast.Quote(w)
		}
		src += "; " + strings.Join(quoted, " ")
	}
	return sh.Eval(hc, src)
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
