package kernel

import (
	"maps"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
)

// What a call needs for its length only, sessions borrow rather than
// keep: a server holds thousands of idle sessions, and each would
// otherwise keep a few KB it uses only while a call runs.
var (
	// parsers are the bash parsers: a parser is a few KB.
	parsers = freeList[*syntax.Parser]{make: func() *syntax.Parser {
		return syntax.NewParser(syntax.Variant(syntax.LangBash))
	}}
	// varTables are the tables mvdan/sh copies the variables into as
	// each run returns (Runner.Vars), which nothing of a session reads
	// (Session.variable reads the runner's own). The session's starting
	// variables stay out of them (mapEnviron.Each): what is copied is
	// the shell's own, half a dozen after a call or thousands.
	varTables = freeList[map[string]expand.Variable]{make: func() map[string]expand.Variable {
		return make(map[string]expand.Variable)
	}}
)

// A freeList keeps at most maxFree values that no call uses, and makes
// one when it has none. Unlike a sync.Pool it keeps them through garbage
// collections, which a sync.Pool is emptied by: a parser made anew for
// each call made a call of 1,000 statements a quarter slower (bench's
// ThousandStatements).
type freeList[T any] struct {
	make func() T
	mu   sync.Mutex
	free []T
}

// maxFree bounds the values a freeList keeps: as many as calls run at
// once on a busy machine, not one a session.
const maxFree = 16

func (l *freeList[T]) get() T {
	l.mu.Lock()
	if n := len(l.free); n > 0 {
		v := l.free[n-1]
		var zero T
		l.free[n-1] = zero
		l.free = l.free[:n-1]
		l.mu.Unlock()
		return v
	}
	l.mu.Unlock()
	return l.make()
}

func (l *freeList[T]) put(v T) {
	l.mu.Lock()
	if len(l.free) < maxFree {
		l.free = append(l.free, v)
	}
	l.mu.Unlock()
}

// lendVars gives the runner a table of varTables to copy its variables
// into at the end of each run, for as long as s.mu is held; returnVars
// takes it back. s.mu is held.
func (s *Session) lendVars() {
	s.vars = varTables.get()
	s.runner.Vars = s.vars
}

// returnVars takes back the table lendVars gave, unless a call that
// yielded runs on with it (Session.yield), and leaves the runner an
// empty one of its own, for mvdan/sh to copy into should it run before
// the next lendVars. s.mu is held.
func (s *Session) returnVars() {
	if s.vars != nil {
		clear(s.vars)
		varTables.put(s.vars)
		s.vars = nil
	}
	if s.idleVars == nil || len(s.idleVars) > 0 {
		s.idleVars = map[string]expand.Variable{}
	}
	s.runner.Vars = s.idleVars
}

// variable is the session's variable name as its shell reads it at the
// top level, from the runner's own tables: Runner.Vars is only a copy,
// and a borrowed one (lendVars). s.mu is held.
func (s *Session) variable(name string) expand.Variable {
	if scope := mvdanpriv.Scope(s.runner); scope != nil {
		return scope.Get(name)
	}
	return s.runner.Env.Get(name)
}

// variables is every variable of the session's shell at the top level,
// the shell's own over its environment's: unset ones included, where one
// hides a variable of the environment. s.mu is held.
func (s *Session) variables() map[string]expand.Variable {
	if scope := mvdanpriv.Scope(s.runner); scope != nil {
		return maps.Collect(scope.Each)
	}
	return maps.Collect(s.runner.Env.Each)
}

// ownVar is the variable name as the session's shell itself set it,
// without the environment it started from: for what only the shell
// sets — the variables shelter keeps its state in (SHELTER_…), arrays,
// namerefs — it is one lookup where variable is several. s.mu is held.
func (s *Session) ownVar(name string) expand.Variable {
	if vr, ok := mvdanpriv.Own(s.runner, name); ok {
		return vr
	}
	return s.variable(name)
}
