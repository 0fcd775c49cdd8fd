package bashcompat

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// The call stack as bash shows it: FUNCNAME, BASH_SOURCE and BASH_LINENO
// hold one entry a frame, the innermost first. A function's frame names
// the function, the file it was defined in and the line it was called
// from; a sourced file's names "source", the file and the line of the
// source command. bash -c has no frame of its own below them (no
// "main"), names "environment" as the file of what it defines, and
// shows FUNCNAME empty while no function runs. A script file's bottom
// frame is "main", the file and line 0.
//
// mvdan/sh keeps no call stack: the kernel gives each frame to the
// function's scope, as its locals (FrameVars, SourceFrameVars), so that
// the stack a command reads is its own scope's.

// The call stack's variables.
const (
	FuncNameVar   = "FUNCNAME"
	BashSourceVar = "BASH_SOURCE"
	BashLinenoVar = "BASH_LINENO"
	FuncNestVar   = "FUNCNEST"
)

// ScriptSource is the file bash -c names for what its script defines.
const ScriptSource = "environment"

// callStack is the stack env shows: funcs is FUNCNAME with the entries
// bash hides outside any function ("source", one a sourced file, and
// "main" for a script file's frame, the one of line 0).
type callStack struct {
	funcs, sources, lines []string
}

func stackOf(env expand.Environ) callStack {
	st := callStack{
		funcs:   env.Get(FuncNameVar).List,
		sources: env.Get(BashSourceVar).List,
		lines:   env.Get(BashLinenoVar).List,
	}
	for i := len(st.funcs); i < len(st.sources); i++ {
		name := "source"
		if i == len(st.lines)-1 && st.lines[i] == "0" {
			name = "main"
		}
		st.funcs = append(st.funcs, name)
	}
	return st
}

// A Frame is the call stack's variables as a new frame makes them, to be
// set in the scope the frame belongs to.
type Frame struct {
	FuncName, BashSource, BashLineno expand.Variable
}

func indexed(list []string, local bool) expand.Variable {
	return expand.Variable{Set: true, Local: local, Kind: expand.Indexed, List: list}
}

// FrameVars is the frame of function name, defined in source and called
// from line, over the stack env shows: the function's locals.
func FrameVars(env expand.Environ, name, source string, line uint) Frame {
	st := stackOf(env)
	return Frame{
		FuncName:   indexed(append([]string{name}, st.funcs...), true),
		BashSource: indexed(append([]string{source}, st.sources...), true),
		BashLineno: indexed(append([]string{strconv.FormatUint(uint64(line), 10)}, st.lines...), true),
	}
}

// SourceFrameVars is the frame of sourcing file from line over the stack
// env shows, set where the stack's variables are (local to a function
// that runs, else global). FUNCNAME gains "source" only while a function
// runs, as bash shows it.
func SourceFrameVars(env expand.Environ, file string, line uint) Frame {
	fn, src, ln := env.Get(FuncNameVar), env.Get(BashSourceVar), env.Get(BashLinenoVar)
	f := Frame{
		FuncName:   fn,
		BashSource: indexed(append([]string{file}, src.List...), src.Local),
		BashLineno: indexed(append([]string{strconv.FormatUint(uint64(line), 10)}, ln.List...), ln.Local),
	}
	if len(fn.List) > 0 {
		f.FuncName = indexed(append([]string{"source"}, fn.List...), fn.Local)
	}
	return f
}

// Depth is the number of functions running in env's stack.
func Depth(env expand.Environ) int {
	n := 0
	for _, name := range env.Get(FuncNameVar).List {
		if name != "source" && name != "main" {
			n++
		}
	}
	return n
}

// FuncNest is the limit FUNCNEST sets on how deep functions nest; 0 for
// none.
func FuncNest(env expand.Environ) int {
	n, err := strconv.Atoi(strings.TrimSpace(env.Get(FuncNestVar).String()))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// callerCall is `caller [N]`: without N, the line the running function
// or sourced file was called from and its caller's file; with N, the
// line, function and file of frame N's call. It fails (status 1) outside
// any frame and past the last, and on a word that is not a number
// (status 2).
func callerCall(ctx context.Context, sh Shell, hc interp.HandlerContext, args []string) []string {
	st := stackOf(hc.Env)
	if len(st.lines) == 0 {
		return StatusArgv(1)
	}
	at := func(list []string, i int) (string, bool) {
		if i < len(list) {
			return list[i], true
		}
		return "", false
	}
	if len(args) < 2 {
		src, ok := at(st.sources, 1)
		if !ok {
			src = "NULL"
		}
		return wrote(ctx, sh, hc, "caller", st.lines[0]+" "+src+"\n", 0)
	}
	word := args[1]
	n, err := strconv.Atoi(word)
	if err != nil || n < 0 {
		what := "invalid number"
		if strings.HasPrefix(word, "-") && word != "-" {
			what = "invalid option"
		}
		fmt.Fprintf(hc.Stderr, "caller: %s: %s\ncaller: usage: caller [expr]\n", word, what)
		return StatusArgv(2)
	}
	line, ok1 := at(st.lines, n)
	fn, ok2 := at(st.funcs, n+1)
	src, ok3 := at(st.sources, n+1)
	if !ok1 || !ok2 || !ok3 {
		return StatusArgv(1)
	}
	return wrote(ctx, sh, hc, "caller", strings.Join([]string{line, fn, src}, " ")+"\n", 0)
}

// IntrospectionWords are the names whose use in a script, or in a file it
// sources, turns on the call stack for its session; a script without one
// runs its functions as mvdan/sh does.
var IntrospectionWords = []string{FuncNameVar, BashSourceVar, BashLinenoVar, FuncNestVar, "caller"}

// ReadsCallStack reports whether src names any of IntrospectionWords.
func ReadsCallStack(src string) bool {
	return slices.ContainsFunc(IntrospectionWords, func(w string) bool { return strings.Contains(src, w) })
}
