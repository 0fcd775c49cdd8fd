package bashcompat

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// shellOption is one of bash's options, as set -o or shopt names it.
type shellOption struct {
	name string
	flag byte // set's letter for it; 0 for none
	on   bool // its state when bash -c starts
}

// setOptions are set -o's options, in the order bash lists them.
var setOptions = []shellOption{
	{"allexport", 'a', false}, {"braceexpand", 'B', true}, {"emacs", 0, false},
	{"errexit", 'e', false}, {"errtrace", 'E', false}, {"functrace", 'T', false},
	{"hashall", 'h', true}, {"histexpand", 'H', false}, {"history", 0, false},
	{"ignoreeof", 0, false}, {"interactive-comments", 0, true}, {"keyword", 'k', false},
	{"monitor", 'm', false}, {"noclobber", 'C', false}, {"noexec", 'n', false},
	{"noglob", 'f', false}, {"nolog", 0, false}, {"notify", 'b', false},
	{"nounset", 'u', false}, {"onecmd", 't', false}, {"physical", 'P', false},
	{"pipefail", 0, false}, {"posix", 0, false}, {"privileged", 'p', false},
	{"verbose", 'v', false}, {"vi", 0, false}, {"xtrace", 'x', false},
}

// shoptOptions are shopt's options, in the order bash lists them.
var shoptOptions = []shellOption{
	{"autocd", 0, false}, {"assoc_expand_once", 0, false}, {"cdable_vars", 0, false},
	{"cdspell", 0, false}, {"checkhash", 0, false}, {"checkjobs", 0, false},
	{"checkwinsize", 0, true}, {"cmdhist", 0, true}, {"compat31", 0, false},
	{"compat32", 0, false}, {"compat40", 0, false}, {"compat41", 0, false},
	{"compat42", 0, false}, {"compat43", 0, false}, {"compat44", 0, false},
	{"complete_fullquote", 0, true}, {"direxpand", 0, false}, {"dirspell", 0, false},
	{"dotglob", 0, false}, {"execfail", 0, false}, {"expand_aliases", 0, false},
	{"extdebug", 0, false}, {"extglob", 0, false}, {"extquote", 0, true},
	{"failglob", 0, false}, {"force_fignore", 0, true}, {"globasciiranges", 0, true},
	{"globskipdots", 0, true}, {"globstar", 0, false}, {"gnu_errfmt", 0, false},
	{"histappend", 0, false}, {"histreedit", 0, false}, {"histverify", 0, false},
	{"hostcomplete", 0, true}, {"huponexit", 0, false}, {"inherit_errexit", 0, false},
	{"interactive_comments", 0, true}, {"lastpipe", 0, false}, {"lithist", 0, false},
	{"localvar_inherit", 0, false}, {"localvar_unset", 0, false}, {"login_shell", 0, false},
	{"mailwarn", 0, false}, {"no_empty_cmd_completion", 0, false}, {"nocaseglob", 0, false},
	{"nocasematch", 0, false}, {"noexpand_translation", 0, false}, {"nullglob", 0, false},
	{"patsub_replacement", 0, true}, {"progcomp", 0, true}, {"progcomp_alias", 0, false},
	{"promptvars", 0, true}, {"restricted_shell", 0, false}, {"shift_verbose", 0, false},
	{"sourcepath", 0, true}, {"varredir_close", 0, false}, {"xpg_echo", 0, false},
}

// flagOrder is the order of the letters in bash's $-.
const flagOrder = "abefhkmnptuvxBCEHPT"

// OptionsVar holds the state of the options mvdan/sh does not implement
// (shast.OptionsVar): a shell variable, so that a subshell's options stay
// in the subshell, as mvdan/sh's own do.
const OptionsVar = shast.OptionsVar

// optionState reads a shell's options: mvdan/sh's own from its runner
// (mvdan, which answers nil when it cannot), the others from
// [OptionsVar].
type optionState struct {
	mvdan func(name string) *bool
	held  string // OptionsVar's value
}

func stateOf(sh Shell, hc interp.HandlerContext) optionState {
	mvdan := func(name string) *bool { return sh.Option(hc, name) }
	return optionState{mvdan: mvdan, held: hc.Env.Get(OptionsVar).String()}
}

// mvdanOption reports whether mvdan/sh implements the option name.
func mvdanOption(name string) bool {
	switch name {
	case "allexport", "errexit", "noexec", "noglob", "nounset", "xtrace", "pipefail",
		"dotglob", "expand_aliases", "extglob", "globstar", "nocaseglob", "nullglob":
		return true
	}
	return false
}

func (o optionState) on(opt shellOption) bool {
	if mvdanOption(opt.name) {
		p := o.mvdan(opt.name)
		return p != nil && *p
	}
	return opt.on != strings.Contains(o.held, " "+opt.name+" ")
}

// set is the state with opt turned on or off, for the options mvdan/sh
// does not implement.
func (o optionState) set(opt shellOption, on bool) optionState {
	if o.on(opt) == on {
		return o
	}
	if o.held == "" {
		o.held = " "
	}
	if key := " " + opt.name + " "; strings.Contains(o.held, key) {
		o.held = strings.Replace(o.held, key, " ", 1)
	} else {
		o.held += opt.name + " "
	}
	return o
}

func findOption(table []shellOption, name string) (shellOption, bool) {
	for _, opt := range table {
		if opt.name == name {
			return opt, true
		}
	}
	return shellOption{}, false
}

// HeldOption reports whether env's shell has the option name on, for an
// option mvdan/sh does not implement (set -o's or shopt's); false for an
// unknown name.
func HeldOption(env expand.Environ, name string) bool {
	return OptionHeld(env.Get(OptionsVar).String(), name)
}

// OptionHeld is HeldOption of a shell whose OptionsVar is held.
func OptionHeld(held, name string) bool {
	opt, ok := findOption(setOptions, name)
	if !ok {
		opt, ok = findOption(shoptOptions, name)
	}
	return ok && optionState{held: held}.on(opt)
}

// OptionFlags is the part of bash's $- that a shell's options make ("hB"
// when bash -c starts): mvdanOption is the state of an option mvdan/sh
// implements (nil when unknown), env the shell's variables. The caller
// adds the shell's own letters (c for a script given as a string).
func OptionFlags(mvdanOption func(name string) *bool, env expand.Environ) string {
	o := optionState{mvdan: mvdanOption, held: env.Get(OptionsVar).String()}
	var b []byte
	for i := range len(flagOrder) {
		for _, opt := range setOptions {
			if opt.flag == flagOrder[i] && o.on(opt) {
				b = append(b, opt.flag)
			}
		}
	}
	return string(b)
}

// SubstStart answers shast.CmdSubstStart, first in a command
// substitution, whose shell's set -e is errexit (nil when unknown): bash
// turns set -e off there unless shopt inherit_errexit or set -o posix is
// on. args[1] is
// $? before the substitution, which it keeps, unless set -e stays on
// (where a failing status would end the substitution).
func SubstStart(hc interp.HandlerContext, errexit *bool, args []string) []string {
	if errexit != nil && *errexit && !HeldOption(hc.Env, "inherit_errexit") && !HeldOption(hc.Env, "posix") {
		*errexit = false
	}
	if errexit != nil && *errexit || len(args) < 2 {
		return StatusArgv(0)
	}
	n, _ := strconv.Atoi(args[1])
	return StatusArgv(n)
}
