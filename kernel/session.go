package kernel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/kernel/internal/jobtable"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/shast"
	"github.com/shelter-sh/shelter/kernel/internal/static"
	"github.com/shelter-sh/shelter/spawn"
)

// ErrClosed is returned when a closed [Session] is used.
var ErrClosed = errors.New("shelter: session is closed")

// SessionOptions configure one [Session].
type SessionOptions struct {
	// Dir is the starting working directory; empty means the process's
	// own. It must exist.
	Dir string
	// Env is set, exported, in the session; it wins over the kernel's.
	Env map[string]string
	// PassEnv names host variables copied into this session.
	PassEnv []string
	// Caller is handed to every tool; ID defaults to a generated one.
	Caller Caller
	// Tools are registered in this session only, beside the kernel's.
	Tools []Tool
	// DiscardSpills makes Close remove the session's spill files and job
	// logs. By default they outlive the session, so that a Result's
	// spill_path and a job's log stay readable; an empty spill directory
	// is removed either way.
	DiscardSpills bool
}

// Session is one shell state: working directory, variables, functions,
// background jobs and a private temp directory. Calls on one session are
// serialised; sessions run in parallel.
type Session struct {
	k      *Kernel
	caller Caller
	tools  map[string]Tool
	guard  *static.Guard
	// tmp and spills are the session's $TMPDIR and the directory of its
	// spill files and job logs: named in NewSession, made on first need.
	tmp    fsroot.SessionDir
	spills fsroot.SessionDir
	// spillCreate is spills.CreateTemp, made once: each call's sinks
	// create their spill files with it.
	spillCreate func(pattern string) (*os.File, error)
	devnull     *os.File // the process's one /dev/null, never closed
	discard     bool
	// root confines the session's files in the sandbox profile; nil
	// elsewhere.
	root *fsroot.Root
	// hold is what the operating system lets the session's programs
	// reach; nil when they are not confined.
	hold *spawn.Confinement
	// tmpNoted is set once the session said that its $TMPDIR could not
	// be made.
	tmpNoted atomic.Bool
	// netGiven is set when a program of the latest call had the network
	// by its declaration while the session's programs have none.
	netGiven atomic.Bool
	// startEnv is the session's variables as it started: what a declared
	// program inherits in the sandbox, PWD aside.
	startEnv startEnv
	started  time.Time         // what SECONDS counts from
	identity map[string]string // OSTYPE, HOSTNAME…: shellIdentity's, shared
	// answers is set once a call's script named a variable the session
	// answers as it is read (rewrite.Hints.Answered): every later call's
	// subshells are marked, for the functions it may have defined.
	answers atomic.Bool

	// origOut and origErr are the runner's streams as of its first Reset,
	// which process substitutions write to: the running call's.
	origOut, origErr origWriter

	mu     sync.Mutex // held for the duration of a call
	runner *interp.Runner
	// vars is the table of varTables the runner copies its variables
	// into at the end of each run (Runner.Vars) while s.mu is held for a
	// call (lendVars), nil otherwise; idleVars is the empty one it has
	// meanwhile.
	vars, idleVars map[string]expand.Variable

	source strings.Reader // what the parser reads (Session.parse); s.mu is held
	// assocVarFn is s.assocVar, bound once for the static pass.
	assocVarFn func(name string) bool
	closed     bool
	// pending is what the running static pass found on PATH (s.mu is
	// held); paths is what the latest call's found, which its run and
	// its jobs reuse (see pathCache).
	pending *pathCache
	paths   atomic.Pointer[pathCache]
	// setup is what the runner runs before the session's first call
	// (ready); nil once it ran.
	setup *syntax.File

	// call is the state of the running foreground call, nil between calls.
	call atomic.Pointer[callState]

	// callStack is set once a script of the session, or a file it
	// sourced, named the call stack (callstack.go); sourcing is what its
	// runners source meanwhile.
	callStack atomic.Bool
	sourcing  sourcings
	// underscore is set once a script of the session named $_, and
	// commands once one named BASH_COMMAND or LINENO in a trap
	// (special.go).
	underscore, commands atomic.Bool
	// pipes are what the pipelines of a script reading PIPESTATUS noted.
	pipes pipeNotes
	// subshells counts the subshells given a BASHPID (special.go).
	subshells atomic.Int64
	// fds are the descriptors above 2 of the session's shells.
	fds fdRegistry

	jobs    jobtable.Table
	lastJob atomic.Int64    // the pid of the latest job, $!
	life    context.Context // ends with Close: the context of background jobs
	end     context.CancelFunc
}

var sessionCount atomic.Uint64

// sessionIDPrefix is what every session ID of this process starts with.
var sessionIDPrefix = sync.OnceValue(func() string { return "s" + strconv.Itoa(os.Getpid()) + "-" })

// sessionID is the ID of the process's nth session: s<pid>-<n>.
func sessionID(n uint64) string {
	var b [48]byte
	return string(strconv.AppendUint(append(b[:0], sessionIDPrefix()...), n, 10))
}

// NewSession starts a session.
func (k *Kernel) NewSession(opts SessionOptions) (*Session, error) {
	dir := opts.Dir
	if dir == "" && k.cfg.Profile == ProfileSandbox {
		dir = k.cfg.Root
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("session directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("session directory %s is not a directory", dir)
	}
	tools := k.tools
	g := k.guard
	if len(opts.Tools) > 0 {
		if tools, err = registry(k.tools, opts.Tools); err != nil {
			return nil, err
		}
		g = newGuard(tools)
	}
	s := &Session{
		k:       k,
		caller:  opts.Caller,
		tools:   tools,
		guard:   g,
		discard: opts.DiscardSpills,
	}
	if s.caller.SessionID == "" {
		s.caller.SessionID = sessionID(sessionCount.Add(1))
	}
	if dir, err = s.confine(dir); err != nil {
		return nil, err
	}
	root := ""
	if s.root != nil {
		// A confined session's temporary files, spill files and job logs
		// live inside its root.
		root = s.root.Dir()
	}
	fsroot.NameDirs(&s.tmp, &s.spills, root)
	s.spillCreate = s.spills.CreateTemp
	s.hold = s.programHold(dir)
	if s.devnull, err = devNull(); err != nil {
		s.cleanup()
		return nil, err
	}
	s.life, s.end = context.WithCancel(context.Background())
	s.startEnv = k.sessionEnv(opts, s.tmp.Path(), dir)
	s.started = time.Now()
	s.identity = k.shellIdentity(&s.startEnv)
	base := sessionEnviron{Environ: newMapEnviron(&s.startEnv, s.identity), source: s.callSource, started: s.started}
	s.runner, err = s.newRunner(base, dir)
	if err != nil {
		s.cleanup()
		return nil, err
	}
	s.setup = sessionSetup()
	return s, nil
}

// ready readies the runner before the session's first use of its state,
// so that a session nothing runs in costs no interpreter run: mvdan/sh
// sets PWD unexported, fills HOME from the host and makes GID, and the
// session decides all three (forgetResetVars); the directory stack starts
// as bash's does, holding the working directory (see shast.DirStackVar).
// s.mu is held.
func (s *Session) ready() {
	if s.setup == nil {
		return
	}
	s.runner.Reset()
	_, home := s.startEnv.lookup("HOME")
	forgetResetVars(context.Background(), s.runner, home)
	s.runner.Run(context.Background(), s.setup)
	s.setup = nil
}

var sessionSetup = lazyParse("export PWD; " + shast.DirStackVar + `=("$PWD")`)

// forgetResetVars takes out of r, just reset, what mvdan/sh's Reset sets
// that bash does not: GID, readonly, a name bash leaves to the script
// (docs/mvdan.md, "Gid variable"), and HOME from the host when the
// environment has none, home false ("Home from host"). Both are deleted
// rather than unset, so that no run copies them again.
func forgetResetVars(ctx context.Context, r *interp.Runner, home bool) {
	mvdanpriv.Forget(r, "GID")
	if !home && !mvdanpriv.Forget(r, "HOME") {
		r.Run(ctx, unsetHome())
	}
}

var unsetHome = lazyParse("unset HOME")

func mustParse(src string) *syntax.File {
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		panic(err)
	}
	return f
}

// lazyParse is src parsed on first use, so that the package's set-up
// parses nothing (a parser is a few KB to allocate).
func lazyParse(src string) func() *syntax.File {
	return sync.OnceValue(func() *syntax.File { return mustParse(src) })
}

// lazyRegexp is pattern compiled on first use.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// newRunner makes an interpreter wired to the session's handlers, in dir
// (absolute, a directory). It is also used for shebang-less scripts, so
// they too run under them.
func (s *Session) newRunner(env expand.Environ, dir string) (*interp.Runner, error) {
	return interp.New(
		interp.Env(env),
		atDir(dir),
		interp.StdIO(s.devnull, &s.origOut, &s.origErr),
		interp.CallHandler(s.callHandler),
		interp.OpenHandler(s.openHandler),
		interp.StatHandler(s.statHandler),
		interp.ReadDirHandler2(s.readDirHandler),
		interp.AccessHandler(s.accessHandler),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return s.execHandler }),
	)
}

// atDir starts a runner in dir, an absolute path its caller found to be a
// directory: interp.Dir would look again.
func atDir(dir string) interp.RunnerOption {
	return func(r *interp.Runner) error {
		r.Dir = dir
		return nil
	}
}

// ID is the session's identifier, as handed to tools.
func (s *Session) ID() string { return s.caller.SessionID }

// Caller is the identity handed to tools.
func (s *Session) Caller() Caller { return s.caller }

// Kernel returns the kernel the session belongs to.
func (s *Session) Kernel() *Kernel { return s.k }

// Tools returns the tools the session can call, sorted by name.
func (s *Session) Tools() []Tool { return sortedTools(s.tools) }

// Tool returns the session's tool of that name.
func (s *Session) Tool(name string) (Tool, bool) {
	t, ok := s.tools[name]
	return t, ok
}

// Dir is the session's working directory.
func (s *Session) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runner.Dir
}

// TempDir is the session's private temporary directory ($TMPDIR). It is
// named when the session starts and made when first needed: before the
// session starts a program or a tool, or opens, lists or creates a file
// under it. Until then it does not exist.
func (s *Session) TempDir() string { return s.tmp.Path() }

// SpillDir is the directory of the session's spill files and job logs. It
// is made when the first spill file or job log is, and does not exist
// until then.
func (s *Session) SpillDir() string { return s.spills.Path() }

// Close kills the session's background jobs and removes its temp
// directory; spill files and job logs stay unless DiscardSpills was set.
// A session that never made either directory touches no disk.
// Close waits for a running call to finish; it is safe to call twice.
func (s *Session) Close() error {
	s.end()
	s.jobs.CancelAll()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.jobs.WaitAll()
	// What the session's calls left in the background was signalled when
	// they ended; Close returns once it is gone.
	s.jobs.WaitGone(s.grace() + time.Second)
	return s.cleanup()
}

// confine opens the sandbox's root for a session of that profile and
// returns its starting directory: dir, which must lie under the root, or
// the root when the embedder named no directory.
func (s *Session) confine(dir string) (string, error) {
	if s.k.cfg.Profile != ProfileSandbox {
		return dir, nil
	}
	root := s.k.cfg.Root
	if root == "" {
		root = dir
	}
	c, err := fsroot.OpenRoot(root)
	if err != nil {
		return "", err
	}
	s.root = c
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if !c.Under(dir) {
		c.Close()
		return "", fmt.Errorf("session directory %s is outside the sandbox root %s", dir, c.Dir())
	}
	return dir, nil
}

func (s *Session) cleanup() error {
	s.fds.closeAll()
	if s.root != nil {
		defer s.root.Close()
	}
	if s.spills.Close() {
		// With everything in it, or only when nothing spilled.
		s.spills.Remove(s.discard)
	}
	if !s.tmp.Close() {
		return nil
	}
	return s.tmp.Remove(true)
}

// devNull is the process's /dev/null, opened once and shared by every
// session as the input of what has none: a session holds no descriptor
// of its own.
var devNull = sync.OnceValues(func() (*os.File, error) {
	// Not os.Open, which registers a character device with the runtime's
	// poller: starting the poller costs about 0.1 ms of the process's
	// start, for a file that never blocks.
	fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: os.DevNull, Err: err}
	}
	return os.NewFile(uintptr(fd), os.DevNull), nil
})
