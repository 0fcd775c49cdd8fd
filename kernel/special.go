package kernel

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// $_ is the last argument of the previous simple command. mvdan/sh keeps
// none; in a session whose scripts name it (introspection), the call
// handler sets it to each command's last word as the command starts
// (docs/mvdan.md, "Last argument"). bash sets it as the command ends,
// so a function's body sees its caller's previous command's word in
// bash and its own call's here; the commands that are not simple
// (assignments alone, [[ ]], (( ))) leave it as it was.

// noteIntrospection turns on, for the rest of the session, what script
// names of the call stack (bashcompat.IntrospectionWords), $_ and what
// needs each simple command's line and words (BASH_COMMAND, or LINENO
// with a trap): one pass over the script, which a session that has them
// all on already skips.
func (s *Session) noteIntrospection(script string) {
	if s.callStack.Load() && s.underscore.Load() && s.commands.Load() {
		return
	}
	stack, underscore, commands := introspection(script)
	if stack {
		s.callStack.Store(true)
	}
	if underscore {
		s.underscore.Store(true)
	}
	if commands {
		s.commands.Store(true)
	}
}

// introspection reports whether src names the call stack
// (bashcompat.ReadsCallStack), $_ (as "$_" or "${_"), and what needs
// each simple command's line and words (BASH_COMMAND, or LINENO and
// trap). It looks only where the bytes F, B, L and _ are, found a vector
// at a time (strings.IndexByte), and searches for the two lower-case
// words whole: a scan a byte cost a call as much as its static pass.
func introspection(src string) (stack, underscore, commands bool) {
	if len(src) <= shortScript {
		return introspectionScan(src)
	}
	lineno := false
	for i := strings.IndexByte(src, 'F'); i >= 0 && !stack; i = indexFrom(src, 'F', i+1) {
		stack = strings.HasPrefix(src[i:], bashcompat.FuncNameVar) || strings.HasPrefix(src[i:], bashcompat.FuncNestVar)
	}
	for i := strings.IndexByte(src, 'B'); i >= 0; i = indexFrom(src, 'B', i+1) {
		rest := src[i:]
		stack = stack || strings.HasPrefix(rest, bashcompat.BashSourceVar) || strings.HasPrefix(rest, bashcompat.BashLinenoVar)
		commands = commands || strings.HasPrefix(rest, "BASH_COMMAND")
	}
	for i := strings.IndexByte(src, 'L'); i >= 0 && !lineno; i = indexFrom(src, 'L', i+1) {
		lineno = strings.HasPrefix(src[i:], "LINENO")
	}
	for i := strings.IndexByte(src, '_'); i >= 0 && !underscore; i = indexFrom(src, '_', i+1) {
		underscore = i > 0 && src[i-1] == '$' || i > 1 && src[i-1] == '{' && src[i-2] == '$'
	}
	stack = stack || strings.Contains(src, "caller")
	commands = commands || lineno && strings.Contains(src, "trap")
	return stack, underscore, commands
}

// shortScript is the length up to which one pass over a script's bytes
// costs less than introspection's searches, each a call.
const shortScript = 32

// introspectionScan is introspection in one pass over src, which looks
// further only at the bytes the names start with.
func introspectionScan(src string) (stack, underscore, commands bool) {
	lineno, trap := false, false
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case 'F':
			stack = stack || strings.HasPrefix(src[i:], bashcompat.FuncNameVar) || strings.HasPrefix(src[i:], bashcompat.FuncNestVar)
		case 'B':
			stack = stack || strings.HasPrefix(src[i:], bashcompat.BashSourceVar) || strings.HasPrefix(src[i:], bashcompat.BashLinenoVar)
			commands = commands || strings.HasPrefix(src[i:], "BASH_COMMAND")
		case 'c':
			stack = stack || strings.HasPrefix(src[i:], "caller")
		case '_':
			underscore = underscore || i > 0 && src[i-1] == '$' || i > 1 && src[i-1] == '{' && src[i-2] == '$'
		case 'L':
			lineno = lineno || strings.HasPrefix(src[i:], "LINENO")
		case 't':
			trap = trap || strings.HasPrefix(src[i:], "trap")
		}
	}
	return stack, underscore, commands || lineno && trap
}

// indexFrom is the index of the first c in s at or after from, or -1.
func indexFrom(s string, c byte, from int) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// setUnderscore sets $_ to the last of args, in the shell that runs the
// command; shelter's own commands leave it alone.
func setUnderscore(hc interp.HandlerContext, args []string) {
	last := args[len(args)-1]
	if shelterOwn(args) {
		return
	}
	if scope := mvdanpriv.Scope(mvdanpriv.HandlerRunner(hc)); scope != nil {
		scope.Set("_", expand.Variable{Set: true, Kind: expand.String, Str: last})
	}
}

// traceCommand sets, for the ERR trap, the line of the simple command
// about to run (bashcompat.CommandLineVar) and BASH_COMMAND, its words,
// in the shell that runs it; shelter's own commands leave them alone.
// bash's BASH_COMMAND is the command's text before expansion.
func traceCommand(hc interp.HandlerContext, args []string) {
	if shelterOwn(args) {
		return
	}
	if scope := mvdanpriv.Scope(mvdanpriv.HandlerRunner(hc)); scope != nil {
		scope.Set(bashcompat.CommandLineVar, expand.Variable{Set: true, Kind: expand.String, Str: strconv.FormatUint(uint64(hc.Pos.Line()), 10)})
		scope.Set("BASH_COMMAND", expand.Variable{Set: true, Kind: expand.String, Str: strings.Join(args, " ")})
	}
}

// shelterOwn reports whether args is an internal command, shelter's
// rather than the script's.
func shelterOwn(args []string) bool {
	first := args[0]
	return first == "" || first[0] == 0 || first[0] == 1
}

// bookkeeping runs f, which runs shelter's own statements on r between
// the script's (the EXIT trap's clearing), out of set -x's trace and of
// what $_ and BASH_COMMAND see.
func (s *Session) bookkeeping(r *interp.Runner, f func()) {
	u, c := s.underscore.Swap(false), s.commands.Swap(false)
	defer func() {
		s.underscore.Store(u)
		s.commands.Store(c)
	}()
	quietly(r, f)
}

// dashFlags is $- as bash -c has it in the shell that runs hc's command:
// the letters of its options, mvdan/sh's and those shelter keeps
// (bashcompat.OptionFlags), then c (the script came with -c).
func dashFlags(hc interp.HandlerContext) string {
	r := mvdanpriv.HandlerRunner(hc)
	return bashcompat.OptionFlags(func(name string) *bool { return mvdanpriv.Option(r, name) }, hc.Env) + "c"
}

// ownArrays gives scope, a subshell's, a copy of each indexed array env
// shows, so that name+=value there appends to the subshell's own first
// element: mvdan/sh appends in place, in the list the array shares with
// the shell the subshell was made from. A readonly array, which nothing
// appends to, keeps its list.
func ownArrays(env expand.Environ, scope expand.WriteEnviron) {
	env.Each(func(name string, vr expand.Variable) bool {
		if vr.Kind == expand.Indexed && len(vr.List) > 0 && !vr.ReadOnly {
			vr.List, vr.Indexes = slices.Clone(vr.List), slices.Clone(vr.Indexes)
			scope.Set(name, vr)
		}
		return true
	})
}

// enterSubshell answers the subshell command a subshell of a script that
// reads BASHPID, BASH_SUBSHELL or the clock's variables starts with
// (package rewrite): the subshell gets a BASHPID of its own, which no
// process has, BASH_SUBSHELL one deeper, and, when mvdan/sh runs it in
// the background, the session's clock. It keeps the status.
func (s *Session) enterSubshell(hc interp.HandlerContext, args []string) []string {
	if scope := mvdanpriv.Scope(mvdanpriv.HandlerRunner(hc)); scope != nil {
		if len(args) > 0 && args[0] == shast.SubshellArrays {
			ownArrays(hc.Env, scope)
		}
		depth, _ := strconv.Atoi(hc.Env.Get("BASH_SUBSHELL").String())
		pid := os.Getpid() + int(s.subshells.Add(1))
		scope.Set("BASH_SUBSHELL", expand.Variable{Set: true, Kind: expand.String, Str: strconv.Itoa(depth + 1)})
		scope.Set("BASHPID", expand.Variable{Set: true, Kind: expand.String, Str: strconv.Itoa(pid)})
		// A subshell run in the background has a copy of the variables,
		// without those the session answers as they are read.
		mvdanpriv.Inherit(mvdanpriv.HandlerRunner(hc), answerEnviron{s.started, s.identity})
	}
	return bashcompat.StatusArgv(hc.LastExitStatus)
}

// glue answers the glue command (package rewrite): it sets the array
// args[1] to the list args[2] ("@" for the parameters, else an indexed
// array's name) with args[3] glued to its first word and args[4] to its
// last, one word of both when the list is empty. It keeps the status.
func glue(hc interp.HandlerContext, args []string) []string {
	r := mvdanpriv.HandlerRunner(hc)
	scope := mvdanpriv.Scope(r)
	if len(args) != 5 || scope == nil {
		return bashcompat.StatusArgv(hc.LastExitStatus)
	}
	var list []string
	if args[2] == "@" {
		list = slices.Clone(r.Params)
	} else {
		vr := hc.Env.Get(args[2])
		// Through name references to the array they name, as bash.
		for i := 0; vr.Kind == expand.NameRef && i < maxNamerefDepth; i++ {
			vr = hc.Env.Get(vr.Str)
		}
		switch vr.Kind {
		case expand.Indexed:
			list = slices.Clone(vr.List)
		case expand.Associative:
			list = []string{vr.String()}
		default:
			if vr.IsSet() {
				list = []string{vr.Str}
			}
		}
	}
	before, after := args[3], args[4]
	if len(list) == 0 {
		list = []string{before + after}
	} else {
		list[0] = before + list[0]
		list[len(list)-1] += after
	}
	scope.Set(args[1], expand.Variable{Set: true, Kind: expand.Indexed, List: list})
	return bashcompat.StatusArgv(hc.LastExitStatus)
}
