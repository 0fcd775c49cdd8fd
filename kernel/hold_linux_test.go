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
	term := make(chan os.Signal, 2)
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
	// A SIGTERM of the sandbox's would have been queued long before the
	// test's own, sent now: the first received must be the only one.
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	<-term
	select {
	case <-term:
		t.Error("the embedding process got the sandbox's SIGTERM")
	default:
	}
	if !proctest.Alive(victim.Process.Pid) {
		t.Errorf("the unrelated process died")
	}
	if ok, err := proctest.FirstIsSentinel(tcp); err != nil || !ok {
		t.Errorf("the listener got the sandbox's connection first (%v)", err)
	}
	if ok, err := proctest.FirstIsSentinel(abstract); err != nil || !ok {
		t.Errorf("the abstract socket got the sandbox's connection first (%v)", err)
	}
}

// TestHoldAsNobody runs the hold's tests as an unprivileged user.
func TestHoldAsNobody(t *testing.T) {
	proctest.AsNobody(t, "^TestHold(Table|KeepsTmp|TmpLinkSwap)$")
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
	restore := kernel.FakeConfinementSupport(spawn.Support{Landlock: 0, NetNS: true, Helper: true, Caps: true})
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

// TestHoldTmpLinkSwap: a program renames the session's $TMPDIR and puts
// a link to / in its place; the next program gets nothing of /. In the
// sandbox $TMPDIR is under the root, whose rule is the root's own; in
// the agent profile $TMPDIR's rule follows no link, so the start fails.
func TestHoldTmpLinkSwap(t *testing.T) {
	needConfinement(t)
	parent := t.TempDir()
	os.Chmod(parent, 0o755)
	secret := filepath.Join(parent, "secret")
	os.WriteFile(secret, []byte(outsideMarker+"\n"), 0o644)
	swap := `sh -c 'mv "$TMPDIR" "$TMPDIR.old" && ln -s / "$TMPDIR"' && echo swapped; ` +
		`sh -c 'cat ` + secret + `; echo x > "$TMPDIR/tmp/shelter-swap-escape"'; echo "status $?"`
	for _, p := range []kernel.Profile{kernel.ProfileSandbox, kernel.ProfileAgent} {
		t.Run(string(p), func(t *testing.T) {
			root := filepath.Join(parent, string(p))
			os.Mkdir(root, 0o755)
			s := confinedSession(t, root, func(c *kernel.Config) {
				if p == kernel.ProfileAgent {
					c.Profile, c.Externals, c.AllowExternal = p, kernel.ExternalsAllowed, nil
				}
			})
			res, _ := s.Run(context.Background(), `echo warm > "$TMPDIR/w"; `+swap, kernel.RunOptions{})
			// In the sandbox the program may swap it (it lies in the root).
			swapped := strings.Contains(res.Stdout, "swapped\n")
			if strings.Contains(res.Stdout, outsideMarker) || swapped != (p == kernel.ProfileSandbox) {
				t.Errorf("exit %d\nstdout %q\nstderr %q", res.ExitCode, res.Stdout, res.Stderr)
			}
			if _, err := os.Lstat("/tmp/shelter-swap-escape"); err == nil {
				os.Remove("/tmp/shelter-swap-escape")
				t.Errorf("a program wrote /tmp through the swapped $TMPDIR")
			}
			if p != kernel.ProfileAgent {
				return
			}
			// There $TMPDIR is beside the root, where a program may not
			// rename it; a link planted by other means fails the start.
			tmp := s.TempDir()
			if err := os.Rename(tmp, tmp+".old"); err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(tmp + ".old")
			if err := os.Symlink("/", tmp); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(tmp)
			res, _ = s.Run(context.Background(), `sh -c 'cat `+secret+`'`, kernel.RunOptions{})
			if res.ExitCode != 126 || strings.Contains(res.Stdout, outsideMarker) || !strings.Contains(res.Stderr, "a symbolic link was planted there since it was checked") {
				t.Errorf("exit %d stdout %q stderr %q; want the start refused", res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
}
