package spawn

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// fakeSupport, when set (by a test), is what [Probe] answers.
var fakeSupport atomic.Pointer[Support]

// Confinement is what the operating system lets a confined child reach
// (see [Cmd.Confine]). Everything it does not name is refused to the
// child and to every process the child starts, whatever their rights:
//
//   - files: Read and Write, and nothing else (Landlock);
//   - the network: none unless Network is set; each start gets a network
//     namespace of its own whose loopback is up, so a program's own
//     127.0.0.1 server still works (where namespaces are refused, Landlock
//     refuses TCP instead);
//   - signals and abstract Unix sockets: only to and among the child's
//     own descendants (Landlock ABI 6 and later);
//   - privileges: no_new_privs always; a child of root also loses from
//     its bounding set every capability but those a file owner needs.
//
// Every path must be absolute with no symbolic link in it, as
// [Canonical] makes one: the helper follows none, so that a link planted
// after the path was resolved (a directory the program may write,
// renamed and replaced by a link to /) fails the start rather than
// widen it.
type Confinement struct {
	// Read are files and directories the child may read and execute,
	// each with everything beneath it. A path that does not exist is
	// skipped.
	Read []string
	// Write are files and directories it may also write: create, change,
	// rename, link and remove beneath, but never make device files. A
	// path that does not exist is skipped.
	Write []string
	// Network lets the child use the host's network, as an unconfined
	// one does.
	Network bool
	// BestEffort starts the child with what the host can enforce of the
	// rest (see [Probe]) instead of failing the start with
	// [*ConfineError] when something is missing.
	BestEffort bool
}

// SystemRead are the directories of the system that a confined program
// reads and executes: its libraries, its configuration (the CA
// certificates, the user database) and /proc and /sys, read-only; each
// as [Canonical] resolves it (/lib64 is /usr/lib64 where /usr is
// merged), those that exist. The caller may change the slice.
func SystemRead() []string { return slices.Clone(systemRead()) }

var systemRead = sync.OnceValue(func() []string {
	return canonicalAll([]string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/sys"})
})

// SystemDevices are the device files a confined program may read and
// write: the null, zero, full and random devices and its own controlling
// terminal. The caller may change the slice.
func SystemDevices() []string { return slices.Clone(systemDevices()) }

var systemDevices = sync.OnceValue(func() []string {
	return canonicalAll([]string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"})
})

// Canonical is path made absolute, with every symbolic link resolved, as
// a [Confinement] takes it. It fails for a path that does not exist.
func Canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// canonicalAll is the canonical form of each path that exists, once.
func canonicalAll(paths []string) []string {
	var out []string
	for _, p := range paths {
		if c, err := Canonical(p); err == nil && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Support is what this host can enforce of a [Confinement], as [Probe]
// found it.
type Support struct {
	// Landlock is the Landlock ABI version the kernel offers; zero means
	// none. Files need 1, TCP rules 4, signal and socket scopes 6.
	Landlock int
	// NetNS reports whether a start can have a network namespace of its
	// own with loopback up.
	NetNS bool
	// Helper reports whether the program called [Init], which confined
	// starts go through.
	Helper bool
	// Caps reports whether a program of root can be started without the
	// capabilities a confined root does not keep: true when shelter is
	// not root, or is root with CAP_SETPCAP.
	Caps bool
	// Why say, for each protection that is missing, why.
	Why []string
}

// noHelper is what Missing says of a program that never called [Init].
const noHelper = "the confinement helper (the program does not call spawn.Init)"

// Missing lists the protections of a confinement that s cannot give, one
// short phrase each, in a fixed order; empty when it gives them all. With
// network the child has the host's network, and no namespace is needed.
func (s Support) Missing(network bool) []string {
	var out []string
	if !s.Helper {
		out = append(out, noHelper)
	}
	switch {
	case s.Landlock == 0:
		out = append(out, "files (no Landlock)", "signals and abstract sockets (no Landlock)")
	case s.Landlock < 6:
		out = append(out, fmt.Sprintf("signals and abstract sockets (Landlock ABI %d, 6 needed)", s.Landlock))
	}
	if s.Landlock > 0 && s.Landlock < 3 {
		out = append(out, fmt.Sprintf("truncation (Landlock ABI %d, 3 needed)", s.Landlock))
	}
	if !s.Caps {
		out = append(out, "privileges (root without CAP_SETPCAP: programs keep root's capabilities)")
	}
	if !s.NetNS && !network {
		switch {
		case s.Landlock >= 4:
			out = append(out, "UDP (no network namespace; TCP is refused by Landlock)")
		default:
			out = append(out, "the network (no network namespace)")
		}
	}
	return out
}

// String is one line: what holds, and what is missing and why.
func (s Support) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "landlock ABI %d; network namespaces %s; helper %s; capabilities dropped %s",
		s.Landlock, yesNo(s.NetNS), yesNo(s.Helper), yesNo(s.Caps))
	if len(s.Why) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(s.Why, "; "))
	}
	return b.String()
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// ConfineError is the error of a confined start that the host cannot
// confine as asked: [Run] returns it with status 126 and starts nothing.
type ConfineError struct {
	Missing []string // what cannot be enforced, as [Support.Missing] words it
}

func (e *ConfineError) Error() string {
	return "cannot confine the program: this host lacks " + strings.Join(e.Missing, ", ")
}

// ErrConfineSetup is wrapped by the error of a confined start whose
// helper failed to confine the child before executing it.
var ErrConfineSetup = errors.New("confinement failed")
