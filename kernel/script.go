package kernel

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/internal/signame"
	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/rewrite"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// A call is a script (docs/embedding.md, "Bash compatibility"): it runs as
// one interpreter run, so that an EXIT trap set during the call runs when
// the call ends; the statements below prepare it for that run.

// backgroundTexts are the top-level `cmd &` statements of file as jobs
// lists them, in the order rewrite.DetachJobs takes them: printed before the
// rewrite, which would show shelter's own words.
func backgroundTexts(file *syntax.File) []string {
	var texts []string
	for _, st := range file.Stmts {
		if rewrite.IsJob(st) {
			texts = append(texts, commandText(st))
		}
	}
	return texts
}

// jobText is the text of the call's ith job.
func (st *callState) jobText(i int) string {
	if i < len(st.jobTexts) {
		return st.jobTexts[i]
	}
	return commandText(st.jobs[i])
}

// trapCall notes an EXIT trap that a `trap` command sets or clears, so
// that the call runs and clears it at its end (endTraps).
func (st *callState) trapCall(args []string) {
	_, conds, ok := trapArgs(args[1:])
	if !ok {
		return
	}
	for _, c := range conds {
		if c == "EXIT" || c == "0" || c == "exit" || c == "SIGEXIT" {
			st.setTrap = true
		}
	}
}

// trapArgs splits `trap [--] ACTION COND...`; ok is false for listings
// (`trap`, `trap -p`, `trap -l`).
func trapArgs(args []string) (action string, conds []string, ok bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	} else if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && args[0] != "-" {
		return "", nil, false
	}
	if len(args) < 2 {
		if len(args) == 1 && args[0] != "-" && isSignalish(args[0]) {
			// `trap EXIT` resets it, as `trap - EXIT`.
			return "-", args, true
		}
		return "", nil, false
	}
	return args[0], args[1:], true
}

func isSignalish(s string) bool {
	if _, err := strconv.Atoi(s); err == nil {
		return true
	}
	_, ok := signame.Parse(s)
	return ok || s == "EXIT" || s == "exit"
}

var clearExitTrap = lazyParse("trap - EXIT")

// endTraps runs the EXIT trap the call set, with $? the call's status,
// then clears it, so that it runs at the end of this call only. shelter
// runs it, not mvdan/sh, whose trap keeps the status: an `exit N` in the
// trap is the call's status, as in bash. When the call ended early
// (timeout, cancel, memory) it runs bounded by the session's kill grace.
// It returns the call's status: status, or the trap's exit status.
func (s *Session) endTraps(callCtx context.Context, st *callState, status int) int {
	if !st.setTrap {
		return status
	}
	r := s.runner
	final := status
	if v := s.ownVar(bashcompat.ExitTrapVar); v.IsSet() {
		ctx := callCtx
		if callCtx.Err() != nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.Background(), s.grace())
			defer cancel()
		}
		if f, perr := syntax.NewParser().Parse(strings.NewReader(v.String()), "exit trap"); perr == nil {
			errOut := io.Writer(st.errOut)
			if st.stdout != io.Writer(st.out) {
				// On a terminal both streams arrive in stdout.
				errOut = st.out
			}
			interp.StdIO(s.devnull, st.out, errOut)(r)
			s.call.Store(st)
			s.bookkeeping(r, func() {
				r.Run(ctx, clearExitTrap().Stmts[0])
				r.Run(ctx, shast.ExitWith(status))
			})
			for _, stmt := range f.Stmts {
				_, err := runGuarded(ctx, r, stmt)
				if r.Exited() {
					final = exitCode(err)
					break
				}
			}
			s.call.Store(nil)
		}
	}
	s.bookkeeping(r, func() {
		r.Run(context.Background(), clearExitTrap().Stmts[0])
		// The status of the call stays $? for the next.
		r.Run(context.Background(), shast.ExitWith(final))
	})
	return final
}

// origWriter is what the runner had as stdout and stderr at its first
// Reset, which process substitutions such as `>(cat)` write to: the
// running call's stream, and nothing between calls.
type origWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (o *origWriter) set(w io.Writer) {
	o.mu.Lock()
	o.w = w
	o.mu.Unlock()
}

func (o *origWriter) Write(p []byte) (int, error) {
	o.mu.Lock()
	w := o.w
	o.mu.Unlock()
	if w == nil {
		return len(p), nil
	}
	return w.Write(p)
}

// sessionEnviron is the environment the session's runner starts from. It
// answers ${BASH_SOURCE[0]} with the file the running call was read from
// (RunOptions.Source), and ${BASH_LINENO[0]} with 0, the bottom frame of
// a script file's call stack, unless the script set them, which mvdan/sh
// does not know of. ($! is rewrite.BangVar.)
//
// It answers the variables bash keeps and mvdan/sh does not: the
// clock's, SECONDS (whole seconds since the session started),
// EPOCHSECONDS and EPOCHREALTIME (an assignment to one sets a value that
// stays, where bash's SECONDS counts on from it), and the shell's own
// BASHPID ($$) and BASH_SUBSHELL (0).
type sessionEnviron struct {
	expand.Environ
	source  func() string
	started time.Time
}

func (e sessionEnviron) Get(name string) expand.Variable {
	switch name {
	case "BASH_SOURCE":
		if src := e.source(); src != "" {
			return expand.Variable{Set: true, Kind: expand.Indexed, List: []string{src}}
		}
	case "BASH_LINENO":
		if e.source() != "" {
			return expand.Variable{Set: true, Kind: expand.Indexed, List: []string{"0"}}
		}
	}
	vr := e.Environ.Get(name)
	if !vr.IsSet() {
		if value, ok := e.shellVar(name); ok {
			return expand.Variable{Set: true, Kind: expand.String, Str: value}
		}
	}
	return vr
}

// shellVar is the value of one of the clock's variables, or of BASHPID
// and BASH_SUBSHELL as the shell itself has them (a subshell sets its
// own, see Session.enterSubshell); ok is false for any other name.
func (e sessionEnviron) shellVar(name string) (value string, ok bool) {
	switch name {
	case "BASHPID":
		return strconv.Itoa(os.Getpid()), true
	case "BASH_SUBSHELL":
		return "0", true
	}
	return clockVar(e.started, name)
}

// clockVar is the value of one of the clock's variables of a session
// that started at started; ok is false for any other name.
func clockVar(started time.Time, name string) (value string, ok bool) {
	switch name {
	case "SECONDS":
		return strconv.FormatInt(int64(time.Since(started)/time.Second), 10), true
	case "EPOCHSECONDS":
		return strconv.FormatInt(time.Now().Unix(), 10), true
	case "EPOCHREALTIME":
		now := time.Now()
		return fmt.Sprintf("%d.%06d", now.Unix(), now.Nanosecond()/1000), true
	}
	return "", false
}

// answerEnviron answers the variables the session answers as they are
// read, the clock's and the shell's identity (shellIdentity), and lists
// nothing: what a subshell mvdan/sh runs in the background, whose
// variables are a copy, reads them through (Session.enterSubshell).
type answerEnviron struct {
	started  time.Time
	identity map[string]string
}

func (a answerEnviron) Get(name string) expand.Variable {
	if value, ok := clockVar(a.started, name); ok {
		return expand.Variable{Set: true, Kind: expand.String, Str: value}
	}
	if value, ok := a.identity[name]; ok {
		return expand.Variable{Set: true, Kind: expand.String, Str: value}
	}
	return expand.Variable{}
}

func (answerEnviron) Each(func(name string, vr expand.Variable) bool) {}

// callSource is the running call's RunOptions.Source; empty between calls.
func (s *Session) callSource() string {
	if st := s.call.Load(); st != nil {
		return st.source
	}
	return ""
}
