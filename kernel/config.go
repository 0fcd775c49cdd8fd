package kernel

import (
	"io"
	"maps"
	"time"
)

// Profile names a preset of [Config]; see [Preset].
type Profile string

const (
	ProfileHost    Profile = "host"    // the CLI and people: no limits
	ProfileAgent   Profile = "agent"   // embedders and MCP: bounded output, a timeout
	ProfileSandbox Profile = "sandbox" // untrusted agents: no host programs but the declared ones
)

// Profiles lists the presets, in the order of the docs.
func Profiles() []Profile { return []Profile{ProfileHost, ProfileAgent, ProfileSandbox} }

// DefaultCoreEnv is the core set of host variables copied into a session
// by name when present (the host profile adds TERM).
func DefaultCoreEnv() []string {
	return []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TZ"}
}

// Externals is a session's policy for programs found on $PATH. Wrapped
// commands and harness tools run under every policy.
type Externals int

const (
	ExternalsAllowed Externals = iota // any program on the session's PATH
	ExternalsDenied                   // none, except those in Config.AllowExternal
)

// Config is everything a [Kernel] is built from. The zero value is the
// host profile with no limits and the default core environment; [Preset]
// returns the named presets, whose fields all stay overridable.
type Config struct {
	// Profile is the preset this config came from; it decides the
	// profile-specific behaviour no field covers (TERM from the host,
	// ANSI stripping, HOME in the sandbox). Empty means host.
	Profile Profile

	// CoreEnv names the host variables copied into every session when
	// present. Nil means [DefaultCoreEnv]; an empty, non-nil slice copies
	// nothing.
	CoreEnv []string
	// Env is set, exported, in every session; it wins over CoreEnv.
	Env map[string]string
	// PassEnv names further host variables copied into every session.
	PassEnv []string
	// LookupEnv reads the host environment; nil means [os.LookupEnv].
	LookupEnv func(name string) (string, bool)

	// OutputLimit is the bytes of each stream kept in memory (half head,
	// half tail); past it the stream spills to a file. Zero means no limit,
	// though memory stays bounded by spawn.DefaultHardCap.
	OutputLimit int
	// Timeout bounds each call; zero means none.
	Timeout time.Duration
	// SpillCap bounds each spill file and job log on disk; past it the file
	// keeps the stream's last part and says how much it dropped. Zero means
	// spawn.DefaultSpillCap (1 GiB).
	SpillCap int64

	// Subreaper makes the process a child subreaper (Linux): processes a
	// call or job started that left their process group (setsid, double
	// forks) are reparented to this process instead of init, and ended
	// when no call or job that could have started them is still running.
	// It is process-wide and cannot be undone: every orphaned descendant of
	// the process, whoever started it, is then reaped by shelter, and so is
	// any child shelter did not start that runs in a process group other
	// than the process's own (an os/exec child with Setpgid or Setsid
	// whose Wait would then fail); kernel.New fails where it is not
	// supported. The CLI sets it.
	Subreaper bool

	// NonDumpable makes the process non-dumpable (PR_SET_DUMPABLE 0,
	// Linux) when the kernel is built: its /proc entries (environ, fd/,
	// mem…) then belong to root, so no program a session starts reads
	// the embedder's environment or descriptors there unless it holds
	// CAP_SYS_PTRACE, CAP_PERFMON or CAP_SYS_ADMIN (see NoPtrace). It is
	// process-wide and stays after the kernel is gone: no core file is
	// written and no debugger attaches without privilege, and a process
	// of the same user that read the embedder's /proc entries no longer
	// can. Without it a session's programs, running as the embedder's
	// user, can read /proc/<pid>/environ of the embedder: set it whenever
	// the process's environment holds what a session must not see. Every
	// [Preset] sets it; the CLI and serve keep it. A no-op elsewhere.
	NonDumpable bool

	// MemoryLimit bounds what one call or job holds in shelter's memory:
	// each command substitution's capture, the shell's variables, each
	// line read, each xargs item, and the script itself (a quarter of it).
	// Past it the call ends with status 1 and a line saying what outgrew
	// it; other sessions never notice. Zero means [DefaultMemoryLimit];
	// negative means no budget.
	MemoryLimit int64
	// KillGrace is the time between SIGTERM and SIGKILL when a call's
	// process group is ended; zero means spawn.DefaultGrace.
	KillGrace time.Duration

	// Root is the directory the sandbox profile is confined to; empty
	// means each session's starting directory. A session's HOME is
	// $TMPDIR/home, and $TMPDIR is in ROOT/.shelter, which git ignores.
	Root string

	// Externals is the policy for programs found on PATH.
	Externals Externals
	// AllowExternal names programs that run even when Externals is
	// ExternalsDenied.
	AllowExternal []string
	// OperatorLog receives the lines meant for the operator and not for
	// the agent, one Write each: how to allow an external a session was
	// refused (the agent's line names what it may run instead). Each is
	// also a warning issue of the call's Result. nil: no log. The kernel
	// serialises its own writes. `shelter serve` gives its stderr.
	OperatorLog io.Writer

	// Confine is how the operating system holds the programs a session
	// starts: every allowed external, wrapped command's executable and
	// harness executable, and all they start (docs/sandbox.md). The
	// sandbox profile confines; the zero value does not.
	Confine ConfineMode
	// Network lets confined programs use the host's network; without it
	// each program start has a network namespace of its own with only
	// loopback. A declaration may ask for the network for its own program.
	Network bool
	// ReadPaths are further files and directories confined programs may
	// read and execute, beside the system's directories and each
	// program's install prefix.
	ReadPaths []string
	// WritePaths are further directories confined programs may write,
	// beside the session's root (the sandbox's, or its starting
	// directory) and its $TMPDIR: a shared module cache, say.
	WritePaths []string

	// NoPtrace starts every program without the capabilities that read
	// a non-dumpable process's /proc entries in its bounding set:
	// CAP_SYS_PTRACE, CAP_PERFMON and CAP_SYS_ADMIN (Linux). A program run
	// as root then cannot read the embedding process's environment, which
	// the process being non-dumpable keeps from everyone else; nor can it
	// mount or unshare. It changes nothing for the embedding process
	// itself. serve and the CLI's agent and sandbox profiles set it;
	// confined programs lose these capabilities anyway.
	NoPtrace bool

	// Tools are registered in every session, found before PATH.
	Tools []Tool
}

// ConfineMode says whether and how the programs of a session are
// confined; see [Config.Confine].
type ConfineMode int

const (
	// ConfineOff runs programs with the host's reach.
	ConfineOff ConfineMode = iota
	// ConfineOn confines every program; where the host lacks a
	// protection (see [Kernel.Confinement]) no program starts, and the
	// command fails with one line naming what is missing.
	ConfineOn
	// ConfineBestEffort confines every program as far as the host can,
	// and every Result of a session says what is not confined.
	ConfineBestEffort
)

// String is the mode's name as the CLI's --confine takes it.
func (m ConfineMode) String() string {
	switch m {
	case ConfineOn:
		return "on"
	case ConfineBestEffort:
		return "best-effort"
	}
	return "off"
}

// ParseConfineMode reads a mode's name: on, off or best-effort.
func ParseConfineMode(s string) (ConfineMode, bool) {
	for _, m := range []ConfineMode{ConfineOff, ConfineOn, ConfineBestEffort} {
		if m.String() == s {
			return m, true
		}
	}
	return ConfineOff, false
}

// Preset returns the configuration of a profile. It returns false for an
// unknown name.
func Preset(p Profile) (Config, bool) {
	switch p {
	case ProfileHost:
		return Config{Profile: p, CoreEnv: append(DefaultCoreEnv(), "TERM"), NonDumpable: true}, true
	case ProfileAgent, ProfileSandbox:
		c := Config{
			Profile:     p,
			NonDumpable: true,
			OutputLimit: 32 << 10,
			Timeout:     120 * time.Second,
			Env: map[string]string{
				"PAGER":               "cat",
				"GIT_PAGER":           "cat",
				"GIT_EDITOR":          "true",
				"EDITOR":              "true",
				"GIT_TERMINAL_PROMPT": "0",
				"DEBIAN_FRONTEND":     "noninteractive",
				"NO_COLOR":            "1",
				"CI":                  "1",
			},
		}
		if p == ProfileSandbox {
			c.Externals = ExternalsDenied
			c.Confine = ConfineOn
		}
		return c, true
	}
	return Config{}, false
}

// clone is a deep copy of c: its maps and slices are its own.
func (c Config) clone() Config {
	c.CoreEnv = cloneSlice(c.CoreEnv)
	c.PassEnv = cloneSlice(c.PassEnv)
	c.AllowExternal = cloneSlice(c.AllowExternal)
	c.ReadPaths = cloneSlice(c.ReadPaths)
	c.WritePaths = cloneSlice(c.WritePaths)
	c.Tools = cloneSlice(c.Tools)
	if c.Env != nil {
		c.Env = maps.Clone(c.Env)
	}
	return c
}

// cloneSlice copies s, keeping nil and empty apart (a nil CoreEnv means the
// default, an empty one none).
func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}
