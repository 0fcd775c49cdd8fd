package kernel

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"

	"github.com/shelter-sh/shelter/kernel/internal/bashcompat"
	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
)

// sessionEnv computes a session's starting variables, all exported: the
// core set and PassEnv copied from the host by name, then the profile's and
// the embedder's values, then what shelter always sets, which are the
// session's own; the rest is a table the kernel's sessions that start
// alike share (Kernel.shareEnv).
func (k *Kernel) sessionEnv(opts SessionOptions, tmpdir, dir string) startEnv {
	env := make(map[string]string)
	core := k.cfg.CoreEnv
	if core == nil {
		core = DefaultCoreEnv()
	}
	for _, names := range [][]string{core, k.cfg.PassEnv, opts.PassEnv} {
		for _, name := range names {
			if v, ok := k.cfg.LookupEnv(name); ok {
				env[name] = v
			}
		}
	}
	maps.Copy(env, k.cfg.Env)
	maps.Copy(env, opts.Env)
	if _, ok := env["TERM"]; !ok {
		env["TERM"] = "dumb"
	}
	if _, ok := env["LANG"]; !ok {
		env["LANG"] = "C.UTF-8"
	}
	start := startEnv{own: [...]envVar{{"TMPDIR", tmpdir}, {"PWD", dir}, {}}}
	if k.cfg.Profile == ProfileSandbox {
		// Not the root: what programs keep under HOME (.cache, .config)
		// would land in the project (docs/sandbox.md).
		start.own[2] = envVar{"HOME", filepath.Join(tmpdir, fsroot.HomeDir)}
	}
	for _, v := range start.own {
		delete(env, v.name)
	}
	start.shared = k.shareEnv(env)
	return start
}

// shareEnv is env, or the equal table an earlier session of k started
// with, which that session then shares with this one: sessions of a
// server start alike, and twenty variables are a KB a session.
func (k *Kernel) shareEnv(env map[string]string) map[string]string {
	k.envMu.Lock()
	defer k.envMu.Unlock()
	if maps.Equal(env, k.env) {
		return k.env
	}
	k.env = env
	return env
}

// startEnv is a session's starting variables (Kernel.sessionEnv): those
// its own — $TMPDIR, $PWD and the sandbox's $HOME — over a table of the
// rest, which is never written and which other sessions may share.
type startEnv struct {
	own    [3]envVar // an empty name where there is none
	shared map[string]string
}

type envVar struct{ name, value string }

// lookup is the variable name's value, and whether the session started
// with it.
func (e *startEnv) lookup(name string) (string, bool) {
	for _, v := range e.own {
		if v.name == name && name != "" {
			return v.value, true
		}
	}
	v, ok := e.shared[name]
	return v, ok
}

// all is every starting variable, each once, in no order.
func (e *startEnv) all(yield func(name, value string) bool) {
	for _, v := range e.own {
		if v.name != "" && !yield(v.name, v.value) {
			return
		}
	}
	for name, v := range e.shared {
		if !yield(name, v) {
			return
		}
	}
}

// mapEnviron is a session's starting variables as mvdan/sh's environment,
// each one exported and a string, and the shell variables it starts with
// (shellIdentity), unexported. It answers Get from the tables
// themselves, which nothing changes once the session started, and Each
// from a list of the variables made on the first Each that needs them;
// so a session's start copies and sorts nothing, and whoever lists
// variables sorts them.
//
// Each leaves every variable out of the copy each run makes into
// Runner.Vars (mvdanpriv.IsVarsCopy), which nothing of the session
// reads: a call that lists no variables and starts no program builds no
// list. It always leaves the shell variables out: the session answers
// them as they are read, as it answers the clock's (docs/embedding.md,
// "The environment"). Where that loses them, a subshell mvdan/sh runs in
// the background with a copy of the variables, a script that names them
// has the subshell command give the copy the session's answers
// (Session.enterSubshell), and the listings add them
// (shast.IdentityVars).
type mapEnviron struct {
	vars  *startEnv
	shell map[string]string // no name of vars
	once  sync.Once
	list  []namedVar
}

type namedVar struct {
	name, value string
	exported    bool
}

func newMapEnviron(vars *startEnv, shell map[string]string) *mapEnviron {
	return &mapEnviron{vars: vars, shell: shell}
}

func (m *mapEnviron) Get(name string) expand.Variable {
	if v, ok := m.vars.lookup(name); ok {
		return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}
	}
	if v, ok := m.shell[name]; ok {
		return expand.Variable{Set: true, Kind: expand.String, Str: v}
	}
	return expand.Variable{}
}

func (m *mapEnviron) Each(f func(name string, vr expand.Variable) bool) {
	if mvdanpriv.IsVarsCopy(f) {
		// What a run copies into Runner.Vars, which nothing of the
		// session reads (Session.variable), needs none of these.
		return
	}
	m.once.Do(func() {
		m.list = make([]namedVar, 0, len(m.vars.shared)+len(m.vars.own))
		for name, v := range m.vars.all {
			if name == "PWD" {
				// The runner's own PWD, which Reset sets, hides this one
				// for good: listing it too would only make every run
				// copy it twice.
				continue
			}
			m.list = append(m.list, namedVar{name, v, true})
		}
	})
	for _, v := range m.list {
		if !f(v.name, expand.Variable{Set: true, Exported: v.exported, Kind: expand.String, Str: v.value}) {
			return
		}
	}
}

// exported returns the variables a child process gets: exactly the
// exported, set, scalar variables of env, sorted by name. Each may report a
// name more than once; the latest report wins, unset included.
func exported(env expand.Environ) []string {
	vars := make(map[string]expand.Variable)
	env.Each(func(name string, v expand.Variable) bool {
		vars[name] = v
		return true
	})
	pairs := make([]string, 0, len(vars))
	for name, v := range vars {
		// set -a exports what shelter's set and shopt keep, too.
		if v.Exported && v.IsSet() && v.Kind == expand.String && name != bashcompat.OptionsVar {
			pairs = append(pairs, name+"="+v.Str)
		}
	}
	slices.Sort(pairs)
	return pairs
}

// childEnv is the environment of a command the session runs: its exported
// variables, with PWD always the working directory (mvdan/sh's cd resets
// PWD's export attribute; a child must still see where it runs).
func childEnv(env expand.Environ, dir string) []string {
	pairs := exported(env)
	for i, kv := range pairs {
		if strings.HasPrefix(kv, "PWD=") {
			pairs[i] = "PWD=" + dir
			return pairs
		}
	}
	pairs = append(pairs, "PWD="+dir)
	slices.Sort(pairs)
	return pairs
}

// ProgramEnv is the environment a declared program gets: a wrapped
// command, a harness executable, an allowed external (docs/sandbox.md).
// In the sandbox profile that is the session's starting variables (the
// core set, the profile's and the embedder's values), PWD, and of the
// agent's own exports only those pass names; elsewhere it is the
// session's exported variables. In every profile the variables that
// inject code into a program ([InjectionVar]) and those that name a
// program to run (PAGER, EDITOR, GIT_PAGER, …) are as the session
// started — what the host's core set and the embedder gave, never what
// the agent exported; a declaration that pins one sets it after.
func (c *Call) ProgramEnv(pass []string) []string {
	var start startEnv
	if c.session != nil {
		start = c.session.startEnv
	}
	vars := make(map[string]string, len(c.Env))
	if c.session != nil && c.session.root != nil {
		for name, v := range start.all {
			if name != "PWD" {
				vars[name] = v
			}
		}
		vars["PWD"] = c.Dir
		for _, name := range pass {
			if v, ok := c.lookup(name); ok {
				vars[name] = v
			}
		}
	} else {
		for _, kv := range c.Env {
			name, v, _ := strings.Cut(kv, "=")
			vars[name] = v
		}
	}
	// What the agent may not decide is as the session started: what the
	// host and the embedder set there (GIT_CONFIG_GLOBAL in Config.Env,
	// say) stands, and the agent's own value never reaches the program.
	for name := range vars {
		if guarded(name) {
			delete(vars, name)
		}
	}
	for name, v := range start.all {
		if guarded(name) {
			vars[name] = v
		}
	}
	out := make([]string, 0, len(vars))
	for name, v := range vars {
		out = append(out, name+"="+v)
	}
	slices.Sort(out)
	return out
}

// guarded names the variables a declared program takes from the session's
// start only.
func guarded(name string) bool { return InjectionVar(name) || commandVar(name) }

// lookup finds an exported variable of the call, the last report of it
// winning, without building "NAME=".
func (c *Call) lookup(name string) (string, bool) {
	for i := len(c.Env) - 1; i >= 0; i-- {
		kv := c.Env[i]
		if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			return kv[len(name)+1:], true
		}
	}
	return "", false
}

// commandVars name a program that programs run (a pager, an editor):
// a declared program gets the session's starting value, never the
// agent's.
var commandVars = []string{"PAGER", "GIT_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "LESSOPEN", "LESSCLOSE", "MANPAGER"}

func commandVar(name string) bool { return slices.Contains(commandVars, name) }

// InjectionVar reports whether a variable makes a program load or run
// code it names: the dynamic loader's, git's configuration and helpers,
// shells' and interpreters' start-up files and options. The agent's
// value never reaches a declared program: only the session's starting
// one (the host's or the embedder's), or a declaration's pin.
func InjectionVar(name string) bool {
	for _, p := range []string{"LD_", "DYLD_", "GIT_CONFIG", "BASH_FUNC_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
		"GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS",
		"GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "GIT_DIR", "GIT_WORK_TREE",
		"GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
		"GIT_TEMPLATE_DIR",
		"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT", "PYTHONUSERBASE",
		"PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB",
		"RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "NODE_PATH",
		"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
		"GCONV_PATH", "HOSTALIASES", "RESOLV_HOST_CONF", "MALLOC_CHECK_":
		return true
	}
	return false
}
