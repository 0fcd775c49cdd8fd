package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/shelter-sh/shelter/kernel/internal/fsroot"
	"github.com/shelter-sh/shelter/spawn"
)

// The operating system's hold on a session's programs (docs/sandbox.md,
// "Programs the sandbox starts"): the opener holds the shell and the
// builtins; this holds every process the session starts, through
// spawn's Confinement.

// CodeUnconfined is the code of the note every Result of a best-effort
// session carries where the host cannot confine its programs fully, and
// CodeNetworkOff of the note on a call whose program seems to have failed
// for want of the network.
const (
	CodeUnconfined = "unconfined"
	CodeNetworkOff = "network-off"
)

// probeConfinement is what the host can enforce; a test fakes a host that
// lacks something.
var probeConfinement = spawn.Probe

// Confinement reports what this host enforces of the confinement of
// programs ([Config.Confine]), as found once when the first confining
// kernel was built; the zero Support for a kernel that does not confine.
func (k *Kernel) Confinement() spawn.Support { return k.support }

// programHold is the session's part of what its programs may reach: the
// system's directories, its root and $TMPDIR, the configured paths. Each
// start adds its program's install prefix and its declaration's needs.
// Every path is canonical (spawn.Confinement): resolved here, when the
// session starts, so that nothing the session does later moves it.
func (s *Session) programHold(dir string) *spawn.Confinement {
	cfg := &s.k.cfg
	if cfg.Confine == ConfineOff {
		return nil
	}
	root := dir
	if s.root != nil {
		root = s.root.Dir()
	} else if c, err := spawn.Canonical(dir); err == nil {
		root = c
	}
	write := []string{root}
	if !fsroot.Within(s.tmp.Path(), root) {
		// $TMPDIR is made later, by its name: its parent resolved now.
		if parent, err := spawn.Canonical(filepath.Dir(s.tmp.Path())); err == nil {
			write = append(write, filepath.Join(parent, filepath.Base(s.tmp.Path())))
		}
	}
	return &spawn.Confinement{
		Read:       s.k.holdRead, // shared: holdCmd appends to a clipped copy
		Write:      slices.Concat(write, spawn.SystemDevices(), s.k.writePaths),
		Network:    cfg.Network,
		BestEffort: cfg.Confine == ConfineBestEffort,
	}
}

// canonicalPaths checks and resolves Config.ReadPaths or WritePaths when
// the kernel is built: each must be absolute and exist.
func canonicalPaths(field string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("kernel: Config.%s: '%s' is not an absolute path; allowed: absolute paths of existing files and directories", field, p)
		}
		c, err := spawn.Canonical(p)
		if err != nil {
			return nil, fmt.Errorf("kernel: Config.%s: '%s' does not exist; allowed: absolute paths of existing files and directories", field, p)
		}
		out = append(out, c)
	}
	return out, nil
}

// HoldError refuses to start a program that a confining session cannot
// confine on this host ([Config.Confine] is ConfineOn): nothing starts.
type HoldError struct {
	Missing []string // what the host lacks, as [spawn.Support.Missing] words it
}

func (e *HoldError) Error() string {
	return "cannot confine the program: this host lacks " + strings.Join(e.Missing, ", ") +
		"; allowed: --confine best-effort (Config.Confine = ConfineBestEffort), or a host with Landlock and user namespaces (shelter doctor)"
}

// holdCmd confines cmd as the session's hold says, widened by what its
// caller asked in cmd.Confine (a declaration's network or paths) and by
// the program's install prefix; it leaves an unconfined session's cmd
// unconfined. It fails with [*HoldError] where the host cannot confine
// cmd and the session does not settle for best effort.
func (s *Session) holdCmd(cmd *spawn.Cmd) error {
	cmd.NoPtrace = cmd.NoPtrace || s.k.cfg.NoPtrace
	asked := cmd.Confine
	cmd.Confine = nil
	if s.hold == nil {
		return nil
	}
	h := *s.hold
	h.Read = append(slices.Clip(h.Read), s.programReach(cmd.Path, h.Write)...)
	h.Write = slices.Clip(h.Write)
	if asked != nil {
		h.Read = append(h.Read, canonicalSome(asked.Read)...)
		h.Write = append(h.Write, canonicalSome(asked.Write)...)
		if asked.Network && !h.Network {
			h.Network = true
			s.netGiven.Store(true)
		}
	}
	if c := resolvConf(); h.Network && c != "" {
		h.Read = append(h.Read, c)
	}
	if missing := s.k.support.Missing(h.Network); len(missing) > 0 && !h.BestEffort {
		return &HoldError{Missing: missing}
	}
	cmd.Confine = &h
	return nil
}

// programReach is what a program may read and execute to run: its own
// file, and its install prefix (see installPrefix). A program that lies
// where the session writes needs neither, and gets no prefix: there its
// path, links and all, is the agent's to choose. Nor does a prefix that
// would hold the host's home or temporary directory, or everything.
func (s *Session) programReach(path string, write []string) []string {
	real, err := spawn.Canonical(path)
	if err != nil {
		return nil
	}
	for _, w := range write {
		if fsroot.Within(path, w) || fsroot.Within(real, w) {
			return nil
		}
	}
	out := []string{real}
	prefix := installPrefix(real)
	for _, wide := range hostWide() {
		if fsroot.Within(wide, prefix) {
			return out
		}
	}
	return append(out, prefix)
}

// hostWide are the directories a program's install prefix may not hold:
// the host's home and temporary directories (a program in ~/bin would
// give all of ~), and so the root of everything.
var hostWide = sync.OnceValue(func() []string {
	var out []string
	for _, p := range []string{os.Getenv("HOME"), os.TempDir(), "/tmp", "/var/tmp"} {
		if c, err := spawn.Canonical(p); err == nil && p != "" {
			out = append(out, c)
		}
	}
	return out
})

// resolvConf is /etc/resolv.conf resolved, once: the resolver's
// configuration is often a link out of /etc (systemd-resolved's, in
// /run), which a program with the network reads as the file itself.
var resolvConf = sync.OnceValue(func() string {
	c, _ := spawn.Canonical("/etc/resolv.conf")
	return c
})

// installPrefix is the directory a program is installed under: the
// parent of its directory when that is a bin, sbin or shims directory
// (/usr/local/go for /usr/local/go/bin/go, ~/.pyenv for
// ~/.pyenv/shims/python3), else its directory. path is canonical.
func installPrefix(path string) string {
	dir := filepath.Dir(path)
	switch filepath.Base(dir) {
	case "bin", "sbin", "shims":
		return filepath.Dir(dir)
	}
	return dir
}

// canonicalSome resolves a declaration's paths, dropping those gone since
// it was loaded.
func canonicalSome(paths []string) []string {
	var out []string
	for _, p := range paths {
		if c, err := spawn.Canonical(p); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// noteHold adds to res what its session's confinement leaves open: on a
// best-effort host, what is not confined; and when a confined program
// without the network failed as a program without one does, that the
// network is off and how the operator turns it on.
func (s *Session) noteHold(res *Result) {
	if s.hold == nil {
		return
	}
	if s.hold.BestEffort {
		if missing := s.k.support.Missing(s.hold.Network); len(missing) > 0 {
			res.Issues = append(res.Issues, Issue{
				Severity: SeverityWarning, Code: CodeUnconfined,
				Message: "shelter: programs run without confinement of " + strings.Join(missing, ", ") + " on this host (best effort)",
			})
		}
	}
	// A declaration's program that had the network failed for its own
	// reasons; the note would mislead.
	given := s.netGiven.Swap(false)
	if !s.hold.Network && !given && res.ExitCode != 0 && s.k.support.NetNS {
		if m := networkFailure().FindString(tail(res.Stderr) + "\n" + tail(res.Stdout)); m != "" {
			res.Issues = append(res.Issues, Issue{
				Severity: SeverityWarning, Code: CodeNetworkOff,
				Message: "shelter: the network is off for this session's programs (" + strings.TrimSpace(m) + "); allowed: the operator's --network (Config.Network), or network: true in a declaration",
			})
		}
	}
}

// networkFailure matches what programs print when they find no network:
// the resolver's and the routing's errors of C, Go, Python, git and curl.
var networkFailure = lazyRegexp(`(?i)(network is unreachable|temporary failure in name resolution|could not resolve host|name or service not known|no address associated with hostname|dial tcp[^\n]*|getaddrinfo[^\n]*failed)`)

// tail is the last few KiB of a stream, where a failing program's last
// words are.
func tail(s string) string {
	const n = 4 << 10
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
