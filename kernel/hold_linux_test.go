package kernel_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/internal/proctest"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

func needConfinement(t *testing.T) {
	t.Helper()
	if missing := spawn.Probe().Missing(false); len(missing) > 0 {
		t.Skipf("this host cannot confine: %s (%s)", strings.Join(missing, ", "), spawn.Probe())
	}
}

// confinedSession is a session of the sandbox profile on root that may
// run the system's sh and python3.
func confinedSession(t *testing.T, root string, edit func(*kernel.Config)) *kernel.Session {
	t.Helper()
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root = root
	cfg.AllowExternal = []string{"sh", "python3"}
	cfg.Env = map[string]string{"PATH": "/usr/bin:/bin"}
	cfg.LookupEnv = func(name string) (string, bool) {
		if name == "PATH" {
			return "/usr/bin:/bin", true
		}
		return os.LookupEnv(name)
	}
	if edit != nil {
		edit(&cfg)
	}
	k, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestHoldTable is the sandbox's table through the Go API: a program an
// agent runs writes and reads outside the root, connects to the host's
// loopback, signals the embedding process and an unrelated one, and
// connects to an abstract socket; the host finds nothing happened.
func TestHoldTable(t *testing.T) {
	needConfinement(t)
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	parent := t.TempDir()
	os.Chmod(parent, 0o755)
	root, sibling := filepath.Join(parent, "root"), filepath.Join(parent, "sibling")
	os.Mkdir(root, 0o755)
	os.Mkdir(sibling, 0o755)
	secret := filepath.Join(parent, "secret")
	os.WriteFile(secret, []byte(outsideMarker+"\n"), 0o644)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	name := fmt.Sprintf("shelter-hold-%d-%d", os.Getpid(), time.Now().UnixNano())
	abstract, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer abstract.Close()
	victim := exec.Command("sleep", "600")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	// The embedding process would die of the SIGTERM; here it is caught,
	// and must never arrive.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	defer signal.Stop(term)
	outside := func() string {
		b, _ := os.ReadFile(secret)
		return treeHash(t, sibling) + string(b)
	}
	before := outside()

	s := confinedSession(t, root, nil)
	script := fmt.Sprintf(`python3 -c '
import os, signal, socket
def row(name, f):
    try:
        f(); print(name, "DONE")
    except Exception as e:
        print(name, "refused", type(e).__name__)
row("write", lambda: open("%[1]s/created", "w").write("x"))
row("read", lambda: print(open("%[2]s").read()))
row("tcp", lambda: socket.create_connection(("127.0.0.1", %[3]d), timeout=5))
row("kill-embedder", lambda: os.kill(%[4]d, signal.SIGTERM))
row("kill-other", lambda: os.kill(%[5]d, signal.SIGTERM))
row("abstract", lambda: socket.socket(socket.AF_UNIX).connect("\0%[6]s"))
'; echo "went on"`, sibling, secret, tcp.Addr().(*net.TCPAddr).Port, os.Getpid(), victim.Process.Pid, name)
	res, _ := s.Run(context.Background(), script, kernel.RunOptions{})
	if strings.Contains(res.Stdout, "DONE") || strings.Contains(res.Stdout, outsideMarker) || !strings.Contains(res.Stdout, "went on") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if after := outside(); after != before {
		t.Errorf("the files outside the root changed:\n%s\n%s", before, after)
	}
	select {
	case <-term:
		t.Error("the embedding process got the sandbox's SIGTERM")
	default:
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the unrelated process died: %v", err)
	}
	sentinel, _ := net.Dial("tcp", tcp.Addr().String())
	defer sentinel.Close()
	c, err := tcp.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if c.RemoteAddr().String() != sentinel.LocalAddr().String() {
		t.Errorf("the listener got the sandbox's connection")
	}
	c.Close()
}

// TestHoldAsNobody runs the hold's tests as an unprivileged user.
func TestHoldAsNobody(t *testing.T) {
	proctest.AsNobody(t, "^TestHold(Table|KeepsTmp)$")
}

// TestHoldKeepsTmp: a program writes the session's $TMPDIR and root.
func TestHoldKeepsTmp(t *testing.T) {
	needConfinement(t)
	root := t.TempDir()
	s := confinedSession(t, root, nil)
	res, _ := s.Run(context.Background(), `sh -c 'echo a > "$TMPDIR/x" && cat "$TMPDIR/x" && echo b > y && cat y'`, kernel.RunOptions{})
	if res.ExitCode != 0 || res.Stdout != "a\nb\n" {
		t.Errorf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestHoldRefusedWhereMissing: on a host without Landlock a confining
// session refuses to start programs with one line naming what is
// missing, and the shell and builtins go on; best effort runs them and
// every Result says what is not confined.
func TestHoldRefusedWhereMissing(t *testing.T) {
	restore := kernel.FakeConfinementSupport(spawn.Support{Landlock: 0, NetNS: true, Helper: true})
	defer restore()
	root := t.TempDir()
	s := confinedSession(t, root, nil)
	res, _ := s.Run(context.Background(), `sh -c 'echo ran'; echo "status $?"`, kernel.RunOptions{})
	want := "shelter: sh: cannot confine the program: this host lacks files (no Landlock), signals and abstract sockets (no Landlock); allowed: --confine best-effort (Config.Confine = ConfineBestEffort), or a host with Landlock and user namespaces (shelter doctor)\n"
	if res.Stdout != "status 126\n" || res.Stderr != want {
		t.Errorf("stdout %q\nstderr %q\nwant   %q", res.Stdout, res.Stderr, want)
	}
	s = confinedSession(t, root, func(c *kernel.Config) { c.Confine = kernel.ConfineBestEffort })
	for _, script := range []string{`sh -c 'echo ran'`, `echo builtin only`, `(`} {
		res, _ = s.Run(context.Background(), script, kernel.RunOptions{})
		var note string
		for _, is := range res.Issues {
			if is.Code == kernel.CodeUnconfined {
				note = is.Message
			}
		}
		if want := "shelter: programs run without confinement of files (no Landlock), signals and abstract sockets (no Landlock) on this host (best effort)"; note != want {
			t.Errorf("%s: note %q, want %q", script, note, want)
		}
	}
}

// TestNoPtraceAsRoot: a program run as root with Config.NoPtrace cannot
// read the embedding process's environment through /proc/PPID/environ,
// which CAP_SYS_PTRACE (or CAP_PERFMON, or CAP_SYS_ADMIN) reads though
// the process is non-dumpable.
func TestNoPtraceAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the capabilities matter for root's children")
	}
	for _, noPtrace := range []bool{false, true} {
		cfg, _ := kernel.Preset(kernel.ProfileAgent)
		cfg.NoPtrace = noPtrace
		k, err := kernel.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		res, _ := s.Run(context.Background(), `sh -c 'cat /proc/$PPID/environ >/dev/null && echo read'`, kernel.RunOptions{})
		s.Close()
		if got := res.Stdout == "read\n"; got == noPtrace {
			t.Errorf("NoPtrace %v: the environment read: %v (stderr %q)", noPtrace, got, res.Stderr)
		}
	}
}
