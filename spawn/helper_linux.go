package spawn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A confined child is started as the helper: the program itself (its
// /proc/self/exe) run again with helperName as its argv[0]. Before any
// code of the program's main runs, [Init] sees the name, confines the
// thread it runs on and executes the real program from it, so the
// program's first instruction is already confined. Landlock,
// no_new_privs and the bounding set are the thread's, and execve keeps
// them; the network namespace was the clone's.
//
// The helper's argv: helperName, then its options, then "--", the
// program's path and its argv. The helper itself runs with an empty
// environment, so that nothing in the program's (LD_PRELOAD, GODEBUG)
// acts on it before it is confined; the program's comes through a pipe,
// not the argv, which any user may read in /proc/PID/cmdline.
//
//	-r PATH   a path to read and execute beneath
//	-w PATH   a path to write beneath as well
//	-map U:G  map uid U and gid G of the parent's namespace to themselves
//	          in the helper's new user namespace
//	-lo       bring the loopback interface of its namespace up
//	-notcp    refuse TCP with Landlock (no namespace to hold the network)
//	-caps     drop the capabilities a confined root does not keep
//	-best     skip what the kernel lacks instead of failing
//	-e FD     report a failure before the program runs on FD
//	-envfd FD read the program's environment from FD, to its end, each
//	          entry ending in a NUL
//	-limit R:CUR:MAX  set resource limit R right before the execve
//	-probe    exit 0 once confined instead of executing anything
const helperName = "shelter:confine"

// helperReady is set by [Init] in a program that is not the helper: its
// children may be confined.
var helperReady atomic.Bool

// Init must be called first in main by a program that starts confined
// children ([Cmd.Confine]); test binaries call it in TestMain. When the
// process is spawn's confinement helper, Init confines it and executes
// the program it was asked to, and never returns; otherwise it returns at
// once, and confined starts are possible from then on. Confined starts
// in a program that does not call Init fail with [*ConfineError].
func Init() {
	if len(os.Args) == 0 || os.Args[0] != helperName {
		helperReady.Store(true)
		return
	}
	// Straight out: nothing to flush, and a race-enabled build would
	// otherwise wait a second at exit.
	unix.Exit(runHelper(os.Args[1:]))
}

// helperOptions are the helper's parsed argv.
type helperOptions struct {
	read, write          []string
	mapIDs               string
	env                  []string
	limits               []Rlimit
	loopback, noTCP      bool
	dropCaps, bestEffort bool
	probe                bool
	errFD, envFD         int
	path                 string
	argv                 []string
}

func parseHelper(args []string) (helperOptions, bool) {
	o := helperOptions{errFD: -1, envFD: -1}
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		switch a {
		case "-r", "-w", "-e", "-envfd", "-map":
			if len(args) == 0 {
				return o, false
			}
			v := args[0]
			args = args[1:]
			switch a {
			case "-r":
				o.read = append(o.read, v)
			case "-w":
				o.write = append(o.write, v)
			case "-map":
				o.mapIDs = v
			case "-e", "-envfd":
				fd, err := strconv.Atoi(v)
				if err != nil {
					return o, false
				}
				if a == "-e" {
					o.errFD = fd
				} else {
					o.envFD = fd
				}
			}
		case "-limit":
			if len(args) == 0 {
				return o, false
			}
			l, ok := parseLimit(args[0])
			if !ok {
				return o, false
			}
			o.limits = append(o.limits, l)
			args = args[1:]
		case "-lo":
			o.loopback = true
		case "-notcp":
			o.noTCP = true
		case "-caps":
			o.dropCaps = true
		case "-best":
			o.bestEffort = true
		case "-probe":
			o.probe = true
		case "--":
			if len(args) < 2 && !o.probe {
				return o, false
			}
			if len(args) >= 2 {
				o.path, o.argv = args[0], args[1:]
			}
			return o, true
		default:
			return o, false
		}
	}
	return o, o.probe
}

// runHelper confines the thread it runs on and executes the program; it
// returns only on failure, with the status to exit with.
func runHelper(args []string) int {
	runtime.LockOSThread()
	o, ok := parseHelper(args)
	if !ok {
		os.Stderr.WriteString(helperName + ": bad arguments (this is spawn's confinement helper, started by shelter)\n")
		return 126
	}
	if o.errFD >= 0 {
		unix.CloseOnExec(o.errFD)
	}
	fail := func(what string, err error) int {
		report(o.errFD, 'M', what+": "+err.Error())
		return 126
	}
	if o.envFD >= 0 {
		env, err := readEnv(o.envFD)
		if err != nil {
			return fail("reading the environment", err)
		}
		o.env = env
	}
	if o.mapIDs != "" {
		if err := mapIDs(o.mapIDs); err != nil {
			return fail("mapping ids in the user namespace", err)
		}
	}
	if o.loopback {
		if err := loopbackUp(); err != nil {
			return fail("bringing loopback up", err)
		}
	}
	if o.dropCaps {
		if err := dropCapabilities(); err != nil {
			if !o.bestEffort {
				return fail("dropping capabilities", err)
			}
			os.Stderr.WriteString(helperName + ": dropping capabilities: " + err.Error() + "; the program runs with root's (best effort)\n")
		}
	}
	if o.mapIDs != "" {
		// What the helper held of its namespace is not the program's.
		if err := clearCapabilities(); err != nil {
			return fail("clearing capabilities", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fail("clearing ambient capabilities", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail("no_new_privs", err)
	}
	if err := restrict(o); err != nil {
		if !o.bestEffort {
			return fail("landlock", err)
		}
		if err != errNoLandlock {
			os.Stderr.WriteString(helperName + ": landlock: " + err.Error() + "; the program's files are not held (best effort)\n")
		}
	}
	if o.probe {
		return 0
	}
	// No descriptor but those the program was given: what the embedding
	// process inherited without close-on-exec stays out.
	if o.errFD >= 0 {
		unix.CloseRange(uint(o.errFD+1), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	}
	for _, l := range o.limits {
		unix.Setrlimit(l.Resource, &unix.Rlimit{Cur: l.Cur, Max: l.Max})
	}
	err := syscall.Exec(o.path, o.argv, o.env)
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		errno = syscall.EINVAL
	}
	report(o.errFD, 'E', strconv.Itoa(int(errno)))
	if errno == syscall.ENOENT {
		return 127
	}
	return 126
}

// report writes one failure to fd for the parent: kind 'E' with an errno
// of execve, or 'M' with a message.
func report(fd int, kind byte, text string) {
	if fd < 0 {
		if kind == 'M' {
			os.Stderr.WriteString(helperName + ": " + text + "\n")
		}
		return
	}
	unix.Write(fd, append([]byte{kind}, text...))
}

// readEnv reads NUL-terminated entries from fd to its end, and closes it.
func readEnv(fd int) ([]string, error) {
	f := os.NewFile(uintptr(fd), "environment")
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	env := []string{}
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, errors.New("an entry without its NUL")
		}
		env = append(env, string(b[:i]))
		b = b[i+1:]
	}
	return env, nil
}

// parseLimit reads "resource:cur:max".
func parseLimit(w string) (Rlimit, bool) {
	parts := strings.Split(w, ":")
	if len(parts) != 3 {
		return Rlimit{}, false
	}
	r, err1 := strconv.Atoi(parts[0])
	cur, err2 := strconv.ParseUint(parts[1], 10, 64)
	hi, err3 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Rlimit{}, false
	}
	return Rlimit{Resource: r, Cur: cur, Max: hi}, true
}

// clearCapabilities empties the thread's permitted, effective and
// inheritable sets: a program started as another user than root gets
// none by its execve anyway, but an inheritable one would meet a file's
// inheritable capabilities.
func clearCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return unix.Capset(&hdr, &data[0])
}

// mapIDs maps "uid:gid" of the parent namespace to themselves in the
// helper's own user namespace, as an unprivileged process may: one id
// each, its own, with setgroups denied.
func mapIDs(ids string) error {
	uid, gid, ok := strings.Cut(ids, ":")
	if !ok {
		return errors.New("want uid:gid, got " + ids)
	}
	for _, w := range []struct{ file, text string }{
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/gid_map", gid + " " + gid + " 1\n"},
		{"/proc/self/uid_map", uid + " " + uid + " 1\n"},
	} {
		if err := os.WriteFile(w.file, []byte(w.text), 0); err != nil {
			return err
		}
	}
	return nil
}

// loopbackUp sets the loopback interface of the thread's network
// namespace up, as a new namespace has it down.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// keptCapabilities are those a confined root keeps: what owning and
// handing over files takes. Every other one leaves the bounding set, so
// no execve can grant it: CAP_SYS_PTRACE, CAP_SYS_ADMIN, CAP_NET_ADMIN,
// CAP_MKNOD; CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, so that root reads
// and writes only what its own permissions allow; CAP_SETFCAP and
// CAP_FSETID, so that it cannot give a file capabilities, nor keep a
// set-group-ID bit that is not its own.
var keptCapabilities = map[int]bool{
	unix.CAP_CHOWN: true, unix.CAP_FOWNER: true, unix.CAP_KILL: true,
	unix.CAP_SETGID: true, unix.CAP_SETUID: true, unix.CAP_NET_BIND_SERVICE: true,
	unix.CAP_AUDIT_WRITE: true,
}

// dropCapabilities drops from the thread's bounding set every capability
// but the kept ones, up to the last the kernel knows.
func dropCapabilities() error {
	for c := 0; c < 64; c++ {
		if keptCapabilities[c] {
			continue
		}
		in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0)
		if err == unix.EINVAL {
			return nil // past the last capability
		}
		if err != nil || in == 0 {
			continue // not in the bounding set: nothing to drop
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return fmt.Errorf("%w (the process lacks CAP_SETPCAP)", err)
		}
	}
	return nil
}

// The rights of Landlock's ABIs, and those that apply to a file rather
// than a directory.
const (
	llReadRights  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	llFileRights  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llDeviceMakes = unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
	llScopes      = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
)

// fsRights are the file-system rights ABI abi handles.
func fsRights(abi int) uint64 {
	r := uint64(0x1fff) // ABI 1: execute … make_sym
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if abi >= 9 {
		r |= unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	}
	return r
}

// rulesetAttr is struct landlock_ruleset_attr as of ABI 6; the size given
// to the kernel is cut to what the ABI knows.
type rulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

type pathBeneathAttr struct {
	allowed uint64
	fd      int32
	_       [4]byte // the kernel's struct is packed: it reads 12 bytes
}

// landlockABI is the kernel's Landlock ABI version, zero without one.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// errNoLandlock is restrict's error on a kernel without Landlock.
var errNoLandlock = errors.New("the kernel has no Landlock")

// restrict gives the calling thread a Landlock domain that allows what o
// names and nothing else.
func restrict(o helperOptions) error {
	abi := landlockABI()
	if abi == 0 {
		return errNoLandlock
	}
	handled := fsRights(abi)
	attr := rulesetAttr{handledFS: handled}
	size := unsafe.Sizeof(attr.handledFS)
	if abi >= 4 {
		size += unsafe.Sizeof(attr.handledNet)
		if o.noTCP {
			attr.handledNet = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		}
	}
	if abi >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		attr.scoped = llScopes
	}
	rfd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return os.NewSyscallError("landlock_create_ruleset", errno)
	}
	ruleset := int(rfd)
	defer unix.Close(ruleset)
	for _, p := range o.read {
		if err := addPathRule(ruleset, p, llReadRights&handled); err != nil {
			return err
		}
	}
	for _, p := range o.write {
		if err := addPathRule(ruleset, p, handled&^llDeviceMakes); err != nil {
			return err
		}
	}
	_, _, errno = unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0)
	if errno != 0 {
		return os.NewSyscallError("landlock_restrict_self", errno)
	}
	return nil
}

// addPathRule allows rights beneath path; a path that does not exist is
// skipped, and a file gets only the rights that apply to a file.
func addPathRule(ruleset int, path string, rights uint64) error {
	if !filepath.IsAbs(path) {
		return &os.PathError{Op: "landlock rule", Path: path, Err: errors.New("not absolute")}
	}
	// The parent resolved every link of path already: one found now was
	// planted since (a $TMPDIR renamed and replaced by a link to /), and
	// is never followed.
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err == unix.ENOENT || err == unix.ENOTDIR || err == unix.EACCES {
		return nil
	}
	if err == unix.ELOOP {
		return &os.PathError{Op: "landlock rule", Path: path, Err: errors.New("a symbolic link was planted there since it was checked")}
	}
	if err != nil {
		return &os.PathError{Op: "landlock rule", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "landlock rule", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= llFileRights
	}
	attr := pathBeneathAttr{allowed: rights, fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return &os.PathError{Op: "landlock rule", Path: path, Err: errno}
	}
	return nil
}
