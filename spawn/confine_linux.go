package spawn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Probe reports what this host can enforce of a [Confinement]. It looks
// once, the first time it is called after [Init], and answers the same
// after: the Landlock ABI, and a real start of the helper in a network
// namespace of its own (a user namespace too when shelter is not root),
// which is what containers that forbid namespaces refuse. Before Init
// there is no helper to start, and it says so.
func Probe() Support {
	if f := fakeSupport.Load(); f != nil {
		return *f
	}
	if !helperReady.Load() {
		s := Support{Landlock: landlockABI(), Caps: os.Geteuid() != 0 || holdsSetpcap()}
		s.Why = append(s.Why, "helper: the program does not call spawn.Init first in main")
		return s
	}
	return probed()
}

var probed = sync.OnceValue(func() Support {
	s := Support{Helper: true, Caps: os.Geteuid() != 0 || holdsSetpcap()}
	if !s.Caps {
		s.Why = append(s.Why, "capabilities: shelter is root without CAP_SETPCAP, so it cannot drop its programs' capabilities")
	}
	if s.Landlock = landlockABI(); s.Landlock == 0 {
		s.Why = append(s.Why, "landlock: not offered by this kernel (Linux 5.13 or later, with landlock in its lsm= list)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/proc/self/exe")
	cmd.Env = []string{}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	// Landlock is probed on its own above: -best keeps a kernel without
	// it from reading as one without namespaces.
	cmd.Args = append(append([]string{helperName}, netNamespace(cmd.SysProcAttr)...), "-lo", "-best", "-probe", "--")
	if err := cmd.Run(); err != nil {
		why := err.Error()
		if msg := bytes.TrimSpace(stderr.Bytes()); len(msg) > 0 {
			why = string(msg)
		}
		s.Why = append(s.Why, "network namespace: "+why)
	} else {
		s.NetNS = true
	}
	return s
})

// netNamespace asks for a network namespace of the child's own in attr,
// and returns the helper's option that completes it: root may have one as
// is; another user has it inside a user namespace of its own, whose ids
// the helper maps to its own (files of ids it does not map, root's among
// them, show as owned by the overflow ids).
//
// The helper maps itself rather than os/exec from here: shelter is
// non-dumpable, and so is its child until it executes, so /proc/PID of
// the child belongs to root and a parent that is not cannot write it.
func netNamespace(attr *syscall.SysProcAttr) []string {
	attr.Cloneflags |= syscall.CLONE_NEWNET
	if os.Geteuid() == 0 {
		return nil
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	// The helper keeps these of its namespace across its own execve: to
	// deny setgroups (CAP_SYS_ADMIN), map its ids and bring loopback up.
	// They are the namespace's, not the host's, and it clears them before
	// the program's execve.
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETUID, unix.CAP_SETGID, unix.CAP_NET_ADMIN}
	return []string{"-map", strconv.Itoa(os.Geteuid()) + ":" + strconv.Itoa(os.Getegid())}
}

// helperWait bounds the time between a confined start and the program's
// execve.
const helperWait = time.Minute

// confinedStart turns the start of a [Cmd] with Confine into a start of
// the helper, which confines itself and executes the program.
type confinedStart struct {
	args    []string // the helper's options, helperName first
	netns   bool
	env     []byte   // the program's environment, each entry NUL-terminated
	program []string // the program's path and argv
}

// newConfinedStart prepares c's confined start, or fails with
// [*ConfineError] when the host cannot give what c asks and c does not
// settle for best effort. It returns nil when c is not confined.
func newConfinedStart(c *Cmd) (*confinedStart, error) {
	conf := c.Confine
	if conf == nil {
		return nil, nil
	}
	s := Probe()
	if missing := s.Missing(conf.Network); len(missing) > 0 && (!conf.BestEffort || !s.Helper) {
		if !s.Helper {
			missing = []string{noHelper}
		}
		return nil, &ConfineError{Missing: missing}
	}
	cs := &confinedStart{args: []string{helperName}}
	for _, p := range conf.Read {
		cs.args = append(cs.args, "-r", p)
	}
	for _, p := range conf.Write {
		cs.args = append(cs.args, "-w", p)
	}
	if !conf.Network {
		if s.NetNS {
			cs.netns = true
			cs.args = append(cs.args, "-lo")
		} else {
			cs.args = append(cs.args, "-notcp")
		}
	}
	if os.Geteuid() == 0 {
		cs.args = append(cs.args, "-caps")
	}
	if conf.BestEffort {
		cs.args = append(cs.args, "-best")
	}
	// The limits are set right before the program's execve, so they are
	// the program's and not the helper's (a Go runtime under ulimit -v
	// of a Python script would not start).
	for _, l := range c.Limits {
		cs.args = append(cs.args, "-limit", fmt.Sprintf("%d:%d:%d", l.Resource, l.Cur, l.Max))
	}
	// The environment goes through a pipe, not the helper's argv, which
	// every user may read in /proc/PID/cmdline while the helper runs.
	for _, kv := range c.Env {
		cs.env = append(append(cs.env, kv...), 0)
	}
	cs.program = append([]string{c.Path}, c.Args...)
	return cs, nil
}

// start runs start, which starts cmd, as a start of the helper, and
// returns once the helper has executed the program or failed to: a
// program that cannot be executed fails the start as it would unconfined
// ([ErrNoExec] for a file without #!, ENOENT, EACCES, ETXTBSY), and a
// confinement that could not be set up fails it with [ErrConfineSetup].
// A nil cs runs start as is.
func (cs *confinedStart) start(cmd *exec.Cmd, start func() error) error {
	if cs == nil {
		return start()
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	envR, envW, err := os.Pipe()
	if err != nil {
		w.Close()
		return err
	}
	defer envW.Close()
	extra := cmd.ExtraFiles
	cmd.ExtraFiles = append(extra[:len(extra):len(extra)], w, envR)
	fd := 3 + len(extra)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.Path = "/proc/self/exe"
	// The helper runs with no environment: the program's (LD_PRELOAD
	// among it) reaches the program only, as words of the helper's argv.
	cmd.Env = []string{}
	cmd.Args = []string{helperName}
	if cs.netns {
		cmd.Args = append(cmd.Args, netNamespace(cmd.SysProcAttr)...)
	}
	cmd.Args = append(append(cmd.Args, cs.args[1:]...), "-e", strconv.Itoa(fd), "-envfd", strconv.Itoa(fd+1), "--")
	cmd.Args = append(cmd.Args, cs.program...)
	err = start()
	w.Close()
	envR.Close()
	cmd.ExtraFiles = extra
	if err != nil {
		return err
	}
	// The helper reads the environment first, to its end; one that died
	// before makes this write fail, and its own report says why.
	envW.SetWriteDeadline(time.Now().Add(helperWait))
	envW.Write(cs.env)
	envW.Close()
	// The pipe reaches end of file when the program's execve closes it,
	// or when the helper dies; a failure arrives before either. A helper
	// that neither execs nor dies in a minute (a hung file system) is
	// killed: this wait holds off the reaper of orphans.
	r.SetReadDeadline(time.Now().Add(helperWait))
	msg, err := io.ReadAll(r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		cmd.Process.Kill()
		cmd.Process.Wait()
		return fmt.Errorf("%w: the helper did not execute the program within %v", ErrConfineSetup, helperWait)
	}
	if len(msg) == 0 {
		return nil
	}
	cmd.Process.Wait()
	switch msg[0] {
	case 'E':
		n, _ := strconv.Atoi(string(msg[1:]))
		return &os.PathError{Op: "fork/exec", Path: cs.program[0], Err: syscall.Errno(n)}
	default:
		return fmt.Errorf("%w: %s", ErrConfineSetup, msg[1:])
	}
}
