package kernel

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

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
func (s *Session) programHold(dir string) *spawn.Confinement {
	cfg := &s.k.cfg
	if cfg.Confine == ConfineOff {
		return nil
	}
	root := dir
	if s.root != nil {
		root = s.root.dir
	}
	h := &spawn.Confinement{
		Read:       slices.Concat(spawn.SystemRead(), cfg.ReadPaths),
		Write:      slices.Concat([]string{root, s.tmp.path}, spawn.SystemDevices(), cfg.WritePaths),
		Network:    cfg.Network,
		BestEffort: cfg.Confine == ConfineBestEffort,
	}
	return h
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
	if prefix := installPrefix(cmd.Path); prefix != "/" {
		h.Read = append(slices.Clip(h.Read), prefix)
	}
	if asked != nil {
		h.Read = append(h.Read, asked.Read...)
		h.Write = append(slices.Clip(h.Write), asked.Write...)
		if asked.Network && !h.Network {
			h.Network = true
			s.netGiven.Store(true)
		}
	}
	if missing := s.k.support.Missing(h.Network); len(missing) > 0 && !h.BestEffort {
		return &HoldError{Missing: missing}
	}
	cmd.Confine = &h
	return nil
}

// installPrefix is the directory a program is installed under: the
// parent of its directory when that is a bin, sbin or shims directory
// (/usr/local/go for /usr/local/go/bin/go), else its directory; links
// are resolved first. A program in / gets no prefix: that would be all.
func installPrefix(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir := filepath.Dir(path)
	switch filepath.Base(dir) {
	case "bin", "sbin", "shims":
		if parent := filepath.Dir(dir); parent != "/" {
			return parent
		}
	}
	return dir
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
		if m := networkFailure.FindString(tail(res.Stderr) + "\n" + tail(res.Stdout)); m != "" {
			res.Issues = append(res.Issues, Issue{
				Severity: SeverityWarning, Code: CodeNetworkOff,
				Message: "shelter: the network is off for this session's programs (" + strings.TrimSpace(m) + "); allowed: the operator's --network (Config.Network), or network: true in a declaration",
			})
		}
	}
}

// networkFailure matches what programs print when they find no network:
// the resolver's and the routing's errors of C, Go, Python, git and curl.
var networkFailure = regexp.MustCompile(`(?i)(network is unreachable|temporary failure in name resolution|could not resolve host|name or service not known|no address associated with hostname|dial tcp[^\n]*|getaddrinfo[^\n]*failed)`)

// tail is the last few KiB of a stream, where a failing program's last
// words are.
func tail(s string) string {
	const n = 4 << 10
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
