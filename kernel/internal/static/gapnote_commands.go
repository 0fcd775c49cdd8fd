package static

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The builtins set -x traces otherwise than bash when they have two
// arguments or more: mvdan/sh quotes them as one word.
var tracedBuiltins = map[string]bool{
	"echo": true, "printf": true, "read": true, "mapfile": true, "readarray": true, "true": true, "false": true,
	"type": true, "cd": true, "test": true, "[": true, "shift": true, "set": true, "shopt": true, "eval": true,
	"source": true, ".": true, "trap": true, "unset": true, "let": true, "return": true, "exit": true,
	"pushd": true, "popd": true, "dirs": true, "command": true, "builtin": true, "wait": true, "kill": true,
	"umask": true, "ulimit": true, "getopts": true, "hash": true, "pwd": true, "jobs": true,
}

func (c *GapCheck) call(call *syntax.CallExpr) {
	c.alone = nil
	if len(call.Args) == 0 && len(call.Assigns) == 1 {
		c.alone = call.Assigns[0]
	}
	for _, as := range call.Assigns {
		c.assign(as, call.Pos())
	}
	if len(call.Args) == 0 {
		return
	}
	name := call.Args[0].Lit()
	if c.late {
		c.lateCall(call, name)
	}
	c.extglobSameLine(call.Args[1:])
	switch name {
	case "break", "continue":
		c.breaks(call.Pos())
	case "compgen":
		c.note(call.Pos(), &gapCompgen)
	case "wait":
		for _, a := range literalArgs(call.Args[1:]) {
			if len(a) > 1 && a[0] == '-' && strings.Contains(a, "p") {
				c.noteIf(call.Pos(), &gapWaitVar, func(c *GapCheck) bool { return c.facts.background })
			}
		}
	case "exec":
		if len(call.Args) > 1 {
			c.noteIf(call.Pos(), &gapExecTrap, func(c *GapCheck) bool { return c.facts.exitTrap })
		}
	case "set", "shopt", "trap", "read", "eval", "[", "test":
		// Their arguments are read as text: the others' are left alone.
		c.builtin(call.Pos(), name, literalArgs(call.Args[1:]))
	}
}

// builtin looks at the literal arguments of a builtin whose gaps they show.
func (c *GapCheck) builtin(pos syntax.Pos, name string, args []string) {
	switch name {
	case "set":
		c.setOptions(args)
	case "shopt":
		c.shopt(pos, args)
	case "trap":
		c.trap(pos, args)
	case "read":
		for _, a := range args {
			if strings.ContainsAny(c.attrs[a], "ilu") {
				c.note(pos, &gapAttrRead)
			}
		}
	case "eval":
		for _, a := range args {
			if a == "break" || a == "continue" {
				c.note(pos, &gapBreakByEval)
			}
		}
	case "[", "test":
		c.classicTest(pos, args)
	}
}

// lateCall notes what a call shows given what the whole script does.
func (c *GapCheck) lateCall(call *syntax.CallExpr, name string) {
	if len(call.Args) > 2 && tracedBuiltins[name] && c.traced() {
		c.note(call.Pos(), &gapXtrace)
	}
	if c.facts.breakFuncs[name] && c.in(scopeLoop) {
		c.note(call.Pos(), &gapBreakInFunction)
	}
	if c.facts.errTrap && c.facts.funcs[name] {
		c.note(call.Pos(), &gapErrTrap)
	}
	if c.facts.ifsNonBlank {
		c.unquotedSplit(call.Args[1:], call.Pos())
	}
}

// traced reports whether the gaps of set -x show: bash's trace and
// shelter's differ where a script reads them, in a stdout stderr goes to.
func (c *GapCheck) traced() bool { return c.late && c.facts.xtrace && c.facts.stderrToStdout }

// literalArgs are the words' texts, "" for a word that is not literal.
func literalArgs(words []*syntax.Word) []string {
	args := make([]string, len(words))
	for i, w := range words {
		if t, ok := shast.LiteralText(w); ok {
			args[i] = t
		}
	}
	return args
}

func (c *GapCheck) setOptions(args []string) {
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			c.option(args[i+1])
			continue
		}
		if len(a) < 2 || a[0] != '-' || a == "--" {
			return // the options end where the parameters start
		}
		for _, r := range a[1:] {
			switch r {
			case 'e':
				c.facts.errexit = true
			case 'u':
				c.facts.nounset = true
			case 'x':
				c.facts.xtrace = true
			}
		}
	}
}

func (c *GapCheck) option(name string) {
	switch name {
	case "errexit":
		c.facts.errexit = true
	case "nounset":
		c.facts.nounset = true
	case "xtrace":
		c.facts.xtrace = true
	}
}

func (c *GapCheck) shopt(pos syntax.Pos, args []string) {
	set := false
	for _, a := range args {
		switch a {
		case "-s":
			set = true
		case "lastpipe":
			c.facts.lastpipe = c.facts.lastpipe || set
		case "extglob":
			if set {
				c.extglobLine = pos.Line()
			}
		}
	}
}

func (c *GapCheck) trap(pos syntax.Pos, args []string) {
	if len(args) < 2 || strings.HasPrefix(args[0], "-") || args[0] == "" {
		return // a listing, or a reset
	}
	for _, sig := range args[1:] {
		switch sig {
		case "ERR":
			c.facts.errTrap = true
		case "EXIT", "0":
			c.facts.exitTrap = true
		case "RETURN":
			c.note(pos, &gapReturnTrap)
		}
	}
}

// classicTest looks at the literal arguments of [ and test.
func (c *GapCheck) classicTest(pos syntax.Pos, args []string) {
	for i, a := range args {
		switch a {
		case "<", ">":
			c.note(pos, &gapTestLess)
		case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
			for _, op := range []int{i - 1, i + 1} {
				if op >= 0 && op < len(args) && args[op] != "" && !integer(args[op]) && args[op] != "]" {
					c.note(pos, &gapTestInteger)
				}
			}
		case "-e", "-f", "-d", "-r", "-w", "-x", "-s":
			if i+1 < len(args) {
				p := args[i+1]
				if len(p) > 1 && strings.HasSuffix(p, "/") || strings.Contains(p, "/..") {
					c.note(pos, &gapPathLexical)
				}
			}
		}
	}
}
