package kernel

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// The call stack (FUNCNAME, BASH_SOURCE, BASH_LINENO, caller, FUNCNEST)
// is kept only in a session whose scripts or sourced files name it
// (bashcompat.ReadsCallStack; Session.callStack): there the call handler
// frames each function's body as the function is called
// (rewrite.Framed), the frame command gives the function's scope its
// entries of the stack, and source runs as the internal source command,
// which gives the sourced file its frame and takes it back after.
// Elsewhere functions and source run as mvdan/sh runs them.

// stackCall answers, in a session that keeps the call stack, the call of
// a function (framed, args unchanged: ok is false) and source (the
// internal source command).
func (s *Session) stackCall(hc interp.HandlerContext, args []string) (next []string, ok bool) {
	r := mvdanpriv.HandlerRunner(hc)
	if r == nil {
		return nil, false
	}
	name := args[0]
	body := r.Funcs[name]
	if body == nil {
		if (name == "source" || name == ".") && len(args) > 1 {
			next = append([]string{shast.CmdSource}, args[1:]...)
			return next, true
		}
		return nil, false
	}
	line := hc.Pos.Line()
	orig, source, last, framed := rewrite.Unframed(body)
	if framed && last == line {
		return nil, false
	}
	if !framed {
		orig, source = body, s.sourcing.definedIn(r, body)
		if source == "" {
			source = s.callSource()
		}
		if source == "" {
			source = bashcompat.ScriptSource
		}
	}
	r.Funcs[name] = rewrite.Framed(orig, name, source, line)
	return nil, false
}

// frameCall answers the frame command that starts a framed body: the
// function's entries of the call stack become its locals, and the
// command keeps the status the function was called with. Past FUNCNEST,
// the function fails and the shell exits, as bash's does.
func frameCall(hc interp.HandlerContext, args []string) []string {
	scope := mvdanpriv.Scope(mvdanpriv.HandlerRunner(hc))
	if scope == nil || len(args) != 4 {
		return bashcompat.StatusArgv(hc.LastExitStatus)
	}
	if limit := bashcompat.FuncNest(hc.Env); limit > 0 && bashcompat.Depth(hc.Env) >= limit {
		fmt.Fprintf(hc.Stderr, "%s: maximum function nesting level exceeded (%d)\n", args[1], limit)
		return []string{"exit", "1"}
	}
	line, _ := strconv.ParseUint(args[3], 10, 64)
	setFrame(scope, bashcompat.FrameVars(hc.Env, args[1], args[2], uint(line)))
	return bashcompat.StatusArgv(hc.LastExitStatus)
}

func setFrame(scope expand.WriteEnviron, f bashcompat.Frame) {
	scope.Set(bashcompat.FuncNameVar, f.FuncName)
	scope.Set(bashcompat.BashSourceVar, f.BashSource)
	scope.Set(bashcompat.BashLinenoVar, f.BashLineno)
}

// sourceCall runs the internal source command, from the exec handler:
// mvdan/sh's source of args[1:], within the file's frame of the call
// stack. The functions the file defined are framed as defined in it.
func (s *Session) sourceCall(ctx context.Context, hc interp.HandlerContext, args []string) error {
	argv := append([]string{"source"}, args[1:]...)
	r := mvdanpriv.HandlerRunner(hc)
	scope := mvdanpriv.Scope(r)
	if scope == nil {
		return hc.Builtin(ctx, argv)
	}
	file := args[1]
	prev := bashcompat.Frame{
		FuncName:   hc.Env.Get(bashcompat.FuncNameVar),
		BashSource: hc.Env.Get(bashcompat.BashSourceVar),
		BashLineno: hc.Env.Get(bashcompat.BashLinenoVar),
	}
	setFrame(scope, bashcompat.SourceFrameVars(hc.Env, file, hc.Pos.Line()))
	before := make(map[*syntax.Stmt]bool, len(r.Funcs))
	for _, body := range r.Funcs {
		before[body] = true
	}
	s.sourcing.push(r, file, before)
	err := hc.Builtin(ctx, argv)
	s.sourcing.pop(r)
	for name, body := range r.Funcs {
		if _, _, _, framed := rewrite.Unframed(body); !before[body] && !framed {
			r.Funcs[name] = rewrite.Framed(body, name, file, 0)
		}
	}
	setFrame(scope, prev)
	return err
}

// sourcings are the files each runner is sourcing, so that a function a
// file defines and calls before its end is framed as defined there.
type sourcings struct {
	mu sync.Mutex
	by map[*interp.Runner][]sourcing
}

// sourcing is one file a runner sources, and the bodies of the functions
// defined before it started.
type sourcing struct {
	file   string
	before map[*syntax.Stmt]bool
}

func (ss *sourcings) push(r *interp.Runner, file string, before map[*syntax.Stmt]bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.by == nil {
		ss.by = make(map[*interp.Runner][]sourcing)
	}
	ss.by[r] = append(ss.by[r], sourcing{file, before})
}

func (ss *sourcings) pop(r *interp.Runner) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st := ss.by[r]; len(st) > 1 {
		ss.by[r] = st[:len(st)-1]
	} else {
		delete(ss.by, r)
	}
}

// definedIn is the file that defined body, a function r runs: the
// innermost file r is sourcing that started before body was defined;
// "" for the script.
func (ss *sourcings) definedIn(r *interp.Runner, body *syntax.Stmt) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.by[r]
	for i := len(st) - 1; i >= 0; i-- {
		if !st[i].before[body] {
			return st[i].file
		}
	}
	return ""
}
