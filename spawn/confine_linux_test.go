package spawn_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shelter-sh/shelter/internal/proctest"
	"github.com/shelter-sh/shelter/spawn"
)

// needConfinement skips t where the host cannot confine a child.
func needConfinement(t *testing.T) spawn.Support {
	t.Helper()
	s := spawn.Probe()
	if missing := s.Missing(false); len(missing) > 0 {
		t.Skipf("this host cannot confine: %s (%s)", strings.Join(missing, ", "), s)
	}
	return s
}

// sandboxDirs makes a root to confine a child to and a sibling of it
// outside, both writable by the test's user.
func sandboxDirs(t *testing.T) (root, outside string) {
	t.Helper()
	parent := t.TempDir()
	root, outside = filepath.Join(parent, "root"), filepath.Join(parent, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func confinedTo(root string) *spawn.Confinement {
	return &spawn.Confinement{
		Read:  spawn.SystemRead(),
		Write: append([]string{root}, spawn.SystemDevices()...),
	}
}

// runConfined runs argv confined to root and returns its status and
// what it printed.
func runConfined(t *testing.T, conf *spawn.Confinement, root string, argv ...string) (int, string) {
	t.Helper()
	path, err := lookSystem(argv[0])
	if err != nil {
		t.Skipf("%s: %v", argv[0], err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	status, err := spawn.Run(ctx, &spawn.Cmd{
		Path: path, Args: argv, Dir: root,
		Env:     []string{"PATH=/usr/bin:/bin", "HOME=" + root},
		Stdout:  &out,
		Stderr:  &out,
		Confine: conf,
	})
	if err != nil {
		t.Fatalf("%v: %v (%d)\n%s", argv, err, status, out.String())
	}
	return status, out.String()
}

// lookSystem finds a program in the system's directories, which a
// confined child may execute (a shim under $HOME is not among them).
func lookSystem(name string) (string, error) {
	for _, dir := range []string{"/usr/local/bin", "/usr/bin", "/bin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not in the system's directories", name)
}

// TestConfineAsNobody runs the confinement tests again as an
// unprivileged user, which gets its network namespace inside a user
// namespace of its own.
func TestConfineAsNobody(t *testing.T) {
	proctest.AsNobody(t, "^TestConfine(Files|Network|Signals|AbstractSocket|Keeps|Limits|HelperHasNo|InheritsNo)")
}

func TestConfineFiles(t *testing.T) {
	needConfinement(t)
	root, outside := sandboxDirs(t)
	status, out := runConfined(t, confinedTo(root), root, "sh", "-c",
		`echo in > inside; echo out > "$1/created" && exit 3; cat "$1/secret" && exit 4; cat inside`, "sh", outside)
	if status != 0 {
		t.Errorf("status %d, want 0 (3: wrote outside, 4: read outside); output:\n%s", status, out)
	}
	if strings.Contains(out, "secret\n") {
		t.Errorf("the child read a file outside the root:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "created")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was created outside the root: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "inside")); err != nil || string(b) != "in\n" {
		t.Errorf("inside the root: %q, %v; want in", b, err)
	}
	if !strings.Contains(out, "in\n") {
		t.Errorf("the child could not read its own file back:\n%s", out)
	}
}

func TestConfineNetwork(t *testing.T) {
	needConfinement(t)
	root, _ := sandboxDirs(t)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tport := tcp.Addr().(*net.TCPAddr).Port
	uport := udp.LocalAddr().(*net.UDPAddr).Port
	status, out := runConfined(t, confinedTo(root), root, "bash", "-c",
		fmt.Sprintf(`echo udp > /dev/udp/127.0.0.1/%d; exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`, uport, tport))
	if status == 0 || strings.Contains(out, "connected") {
		t.Errorf("TCP connect to the host's 127.0.0.1 worked (status %d):\n%s", status, out)
	}
	// What the child sent arrived before the test's own, if at all.
	if ok, err := proctest.FirstIsSentinel(tcp); err != nil || !ok {
		t.Errorf("the TCP listener got the child's connection first (%v)", err)
	}
	if _, err := udp.WriteTo([]byte("sentinel"), udp.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _, err := udp.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "sentinel" {
		t.Errorf("the UDP listener got %q (%v) before the sentinel: the child's datagram arrived", buf[:n], err)
	}
}

func TestConfineKeepsLoopback(t *testing.T) {
	needConfinement(t)
	root, _ := sandboxDirs(t)
	status, out := runConfined(t, confinedTo(root), root, "python3", "-c", `
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
c.sendall(b"over loopback"); print(a.recv(64).decode())`)
	if status != 0 || !strings.Contains(out, "over loopback") {
		t.Errorf("a server on the namespace's own loopback: status %d\n%s", status, out)
	}
}

func TestConfineSignals(t *testing.T) {
	needConfinement(t)
	if s := spawn.Probe(); s.Landlock < 6 {
		t.Skipf("signal scopes need Landlock ABI 6, the kernel has %d", s.Landlock)
	}
	root, _ := sandboxDirs(t)
	victim := exec.Command("sleep", "300")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	status, out := runConfined(t, confinedTo(root), root, "sh", "-c",
		fmt.Sprintf("kill -TERM %d || exit 3; kill -USR2 %d || exit 4", victim.Process.Pid, os.Getpid()))
	if status != 3 {
		t.Errorf("kill of an unrelated process: status %d, want 3 (refused)\n%s", status, out)
	}
	if !proctest.Alive(victim.Process.Pid) {
		t.Errorf("the unrelated process is gone")
	}
	status, out = runConfined(t, confinedTo(root), root, "sh", "-c", fmt.Sprintf("kill -0 %d || exit 4", os.Getpid()))
	if status != 4 {
		t.Errorf("kill -0 of its parent: status %d, want 4 (refused)\n%s", status, out)
	}
	// Its own children it may signal.
	status, out = runConfined(t, confinedTo(root), root, "sh", "-c", "sleep 300 & kill $! && wait $!; echo $?")
	if status != 0 || !strings.HasSuffix(out, "143\n") {
		t.Errorf("kill of its own child: status %d, output %q, want 143", status, out)
	}
}

func TestConfineAbstractSocket(t *testing.T) {
	needConfinement(t)
	if s := spawn.Probe(); s.Landlock < 6 {
		t.Skipf("socket scopes need Landlock ABI 6, the kernel has %d", s.Landlock)
	}
	root, _ := sandboxDirs(t)
	name := fmt.Sprintf("shelter-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	l, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	status, out := runConfined(t, confinedTo(root), root, "python3", "-c", fmt.Sprintf(`
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0%s")
except OSError as e:
    print("refused:", e); sys.exit(3)
print("connected")`, name))
	if status != 3 {
		t.Errorf("connect to an abstract socket made outside: status %d, want 3\n%s", status, out)
	}
	if ok, err := proctest.FirstIsSentinel(l); err != nil || !ok {
		t.Errorf("the abstract socket got the child's connection first (%v)", err)
	}
}

func TestConfineExecFailures(t *testing.T) {
	needConfinement(t)
	root, _ := sandboxDirs(t)
	script := filepath.Join(root, "noshebang")
	if err := os.WriteFile(script, []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	status, err := spawn.Run(ctx, &spawn.Cmd{Path: script, Args: []string{"noshebang"}, Dir: root, Confine: confinedTo(root)})
	if status != 126 || !errors.Is(err, spawn.ErrNoExec) {
		t.Errorf("a file without #!: %d, %v; want 126 and ErrNoExec", status, err)
	}
	status, err = spawn.Run(ctx, &spawn.Cmd{Path: filepath.Join(root, "absent"), Args: []string{"absent"}, Dir: root, Confine: confinedTo(root)})
	if status != 127 || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %d, %v; want 127 and ENOENT", status, err)
	}
	// A program outside what it may execute.
	outsideDir := t.TempDir()
	prog := filepath.Join(outsideDir, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(outsideDir, 0o755)
	status, err = spawn.Run(ctx, &spawn.Cmd{Path: prog, Args: []string{"prog"}, Dir: root, Confine: confinedTo(root)})
	if status != 126 || !errors.Is(err, os.ErrPermission) {
		t.Errorf("a program outside: %d, %v; want 126 and EACCES", status, err)
	}
}

func TestConfineRefusedWithoutSupport(t *testing.T) {
	restore := spawn.FakeSupport(spawn.Support{Landlock: 0, Helper: true, Caps: true, Why: []string{"faked"}})
	defer restore()
	root, _ := sandboxDirs(t)
	var out bytes.Buffer
	status, err := spawn.Run(context.Background(), &spawn.Cmd{
		Path: "/bin/true", Args: []string{"true"}, Dir: root, Stderr: &out, Confine: confinedTo(root),
	})
	var ce *spawn.ConfineError
	if status != 126 || !errors.As(err, &ce) {
		t.Fatalf("status %d, err %v; want 126 and a ConfineError", status, err)
	}
	if want := "cannot confine the program: this host lacks files (no Landlock), signals and abstract sockets (no Landlock), the network (no network namespace)"; err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
	best := confinedTo(root)
	best.BestEffort = true
	status, err = spawn.Run(context.Background(), &spawn.Cmd{Path: "/bin/true", Args: []string{"true"}, Dir: root, Confine: best})
	if status != 0 || err != nil {
		t.Errorf("best effort: %d, %v; want it run", status, err)
	}
}

// TestNoPtraceBoundingSet: a child of root started with NoPtrace cannot
// hold the capabilities that read a non-dumpable parent's /proc
// entries; shelter keeps them.
func TestNoPtraceBoundingSet(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the bounding set matters for root's children")
	}
	const ptraceBit = 1<<19 | 1<<21 | 1<<38 // CAP_SYS_PTRACE, CAP_SYS_ADMIN, CAP_PERFMON
	bounding := func(status string) uint64 {
		for _, line := range strings.Split(status, "\n") {
			if v, ok := strings.CutPrefix(line, "CapBnd:"); ok {
				var n uint64
				fmt.Sscanf(strings.TrimSpace(v), "%x", &n)
				return n
			}
		}
		t.Fatalf("no CapBnd in:\n%s", status)
		return 0
	}
	self, _ := os.ReadFile("/proc/self/status")
	own := bounding(string(self)) & ptraceBit
	if own == 0 {
		t.Skip("shelter holds none of the capabilities itself")
	}
	for _, noPtrace := range []bool{false, true} {
		var out bytes.Buffer
		status, err := spawn.Run(context.Background(), &spawn.Cmd{
			Path: "/bin/cat", Args: []string{"cat", "/proc/self/status"}, Dir: "/",
			Stdout: &out, NoPtrace: noPtrace,
		})
		if status != 0 || err != nil {
			t.Fatalf("%d, %v", status, err)
		}
		want := own
		if noPtrace {
			want = 0
		}
		if got := bounding(out.String()) & ptraceBit; got != want {
			t.Errorf("NoPtrace %v: the child's bounding set holds %#x of CAP_SYS_PTRACE, CAP_SYS_ADMIN, CAP_PERFMON; want %#x", noPtrace, got, want)
		}
	}
	if now, _ := os.ReadFile("/proc/self/status"); bounding(string(now))&ptraceBit != own {
		t.Errorf("shelter lost capabilities from its own bounding set")
	}
}

// TestConfineLimitsAreTheProgram: the limits a script sets reach the
// program, not the helper that starts it (a Go runtime under ulimit -v
// of a Python script would not start; one under ulimit -n 4 not load).
func TestConfineLimitsAreTheProgram(t *testing.T) {
	needConfinement(t)
	root, _ := sandboxDirs(t)
	var out bytes.Buffer
	status, err := spawn.Run(context.Background(), &spawn.Cmd{
		Path: "/bin/sh", Args: []string{"sh", "-c", "ulimit -n; ulimit -v"}, Dir: root,
		Stdout: &out, Stderr: &out, Confine: confinedTo(root),
		Limits: []spawn.Rlimit{{Resource: unix.RLIMIT_NOFILE, Cur: 16, Max: 16}, {Resource: unix.RLIMIT_AS, Cur: 200 << 20, Max: 200 << 20}},
	})
	if status != 0 || err != nil || out.String() != "16\n204800\n" {
		t.Errorf("status %d, %v; output %q, want 16 and 204800", status, err, out.String())
	}
}

// TestConfineHelperHasNoEnvironment: the program's environment reaches
// the program only. A dynamically linked helper given LD_PRELOAD would
// load the library before it confines anything; the loader's complaint
// about a missing one shows who got it.
func TestConfineHelperHasNoEnvironment(t *testing.T) {
	needConfinement(t)
	root, _ := sandboxDirs(t)
	var out bytes.Buffer
	status, err := spawn.Run(context.Background(), &spawn.Cmd{
		Path: "/bin/sh", Args: []string{"sh", "-c", "echo $MARK"}, Dir: root,
		Env:    []string{"LD_PRELOAD=/nonexistent/shelter-test.so", "MARK=program"},
		Stdout: &out, Stderr: &out, Confine: confinedTo(root),
	})
	if status != 0 || err != nil {
		t.Fatalf("status %d, %v: %s", status, err, out.String())
	}
	// sh, dynamically linked, complains once; the helper must not.
	if n := strings.Count(out.String(), "shelter-test.so"); n > 1 || !strings.Contains(out.String(), "program\n") {
		t.Errorf("the loader complained %d times (the helper got the environment?):\n%s", n, out.String())
	}
}

// TestConfineInheritsNoStrayDescriptor: a descriptor the embedding
// process holds without close-on-exec does not reach the program.
func TestConfineInheritsNoStrayDescriptor(t *testing.T) {
	needConfinement(t)
	root, outside := sandboxDirs(t)
	fd, err := unix.Open(filepath.Join(outside, "secret"), unix.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var out bytes.Buffer
	status, _ := spawn.Run(context.Background(), &spawn.Cmd{
		Path: "/bin/sh", Args: []string{"sh", "-c", fmt.Sprintf("cat <&%d", fd)}, Dir: root,
		Stdout: &out, Stderr: &out, Confine: confinedTo(root),
	})
	if status == 0 || strings.Contains(out.String(), "secret") {
		t.Errorf("status %d: the program read descriptor %d:\n%s", status, fd, out.String())
	}
}

// TestConfineRootWithoutSetpcap: root without CAP_SETPCAP (a hardened
// unit, a container's dropped capabilities) cannot drop its programs'
// capabilities. Probe says so, a confined start is refused, and one of
// best effort runs with a line saying what it could not do.
func TestConfineRootWithoutSetpcap(t *testing.T) {
	if os.Getenv("SHELTER_TEST_NO_SETPCAP") != "" {
		s := spawn.Probe()
		if s.Caps || !strings.Contains(strings.Join(s.Missing(false), ", "), "privileges (root without CAP_SETPCAP") {
			t.Fatalf("probe: %s; missing %v", s, s.Missing(false))
		}
		root, _ := sandboxDirs(t)
		status, err := spawn.Run(context.Background(), &spawn.Cmd{Path: "/bin/true", Args: []string{"true"}, Dir: root, Confine: confinedTo(root)})
		var ce *spawn.ConfineError
		if status != 126 || !errors.As(err, &ce) {
			t.Errorf("confined start: %d, %v; want 126 and a ConfineError", status, err)
		}
		best := confinedTo(root)
		best.BestEffort = true
		var out bytes.Buffer
		status, err = spawn.Run(context.Background(), &spawn.Cmd{Path: "/bin/true", Args: []string{"true"}, Dir: root, Stderr: &out, Confine: best})
		if status != 0 || err != nil || !strings.Contains(out.String(), "dropping capabilities") {
			t.Errorf("best effort: %d, %v, stderr %q", status, err, out.String())
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("the case is root's")
	}
	needConfinement(t)
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv to drop CAP_SETPCAP with")
	}
	exe, _ := os.Executable()
	cmd := exec.Command(setpriv, "--bounding-set", "-setpcap", "--inh-caps", "-setpcap", exe, "-test.run", "^TestConfineRootWithoutSetpcap$", "-test.v")
	cmd.Env = append(os.Environ(), "SHELTER_TEST_NO_SETPCAP=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestConfineEnvironmentNotInArgv: the program's environment reaches
// the helper through a pipe, never its argv, which every user may read
// in /proc/PID/cmdline while it runs.
func TestConfineEnvironmentNotInArgv(t *testing.T) {
	needConfinement(t)
	root, _ := sandboxDirs(t)
	args, err := spawn.HelperArgs(&spawn.Cmd{Path: "/bin/true", Args: []string{"true"}, Dir: root,
		Env: []string{"TOKEN=hunter2-in-argv"}, Confine: confinedTo(root)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(args, " "), "hunter2") {
		t.Errorf("the helper's argv holds the environment: %q", args)
	}
}
