package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/internal/proctest"
	"github.com/shelter-sh/shelter/spawn"
)

// The sandbox confines every process it starts (docs/sandbox.md,
// "Programs the sandbox runs"): each row of the table is done by a program
// the agent wrote, through each route a program takes — an allowed
// external, a declared program, and `go test` of the agent's own code —
// and judged on the host afterwards.

// attackPy does everything a confined program must not, and says what
// it managed; it never fails before trying every row.
const attackPy = `import os, signal, socket, sys
a = dict(x.split("=", 1) for x in sys.argv[1:] if "=" in x)
def row(name, f):
    try:
        f(); print(name, "DONE")
    except Exception as e:
        print(name, "refused:", type(e).__name__)
row("write", lambda: open(a["sibling"] + "/created", "w").write("escaped\n"))
row("read", lambda: print(open(a["secret"]).read().strip()))
row("tcp", lambda: socket.create_connection(("127.0.0.1", int(a["tcp"])), timeout=5).close())
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"escaped", ("127.0.0.1", int(a["udp"])))
row("udp-sent", udp)  # sent into its own namespace, if anywhere: the listener judges
row("kill-shelter", lambda: os.kill(int(open("shelterpid").read()), signal.SIGTERM))
row("kill-other", lambda: os.kill(int(a["victim"]), signal.SIGTERM))
def unix():
    s = socket.socket(socket.AF_UNIX)
    s.connect("\0" + a["abstract"])
row("abstract", unix)
`

// attackGo is the same as the test of a Go module the agent wrote.
const attackGo = `package attack

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func row(name string, err error) {
	if err != nil {
		fmt.Println(name, "refused:", err)
		return
	}
	fmt.Println(name, "DONE")
}

func TestAttack(t *testing.T) {
	args := map[string]string{}
	b, _ := os.ReadFile("../args")
	for _, kv := range strings.Fields(string(b)) {
		k, v, _ := strings.Cut(kv, "=")
		args[k] = v
	}
	row("write", os.WriteFile(args["sibling"]+"/created", []byte("escaped\n"), 0o644))
	secret, err := os.ReadFile(args["secret"])
	fmt.Print(string(secret))
	row("read", err)
	c, err := net.Dial("tcp", "127.0.0.1:"+args["tcp"])
	if err == nil {
		c.Close()
	}
	row("tcp", err)
	u, err := net.Dial("udp", "127.0.0.1:"+args["udp"])
	if err == nil {
		_, err = u.Write([]byte("escaped"))
	}
	row("udp-sent", err) // into its own namespace, if anywhere: the listener judges
	pidText, _ := os.ReadFile("../shelterpid")
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	row("kill-shelter", syscall.Kill(pid, syscall.SIGTERM))
	victim, _ := strconv.Atoi(args["victim"])
	row("kill-other", syscall.Kill(victim, syscall.SIGTERM))
	_, err = net.Dial("unix", "@"+args["abstract"])
	row("abstract", err)
}
`

// targets are what the attack aims at on the host: a sibling of the root
// and a secret outside it, listeners on the host's loopback and an
// abstract socket, and an unrelated process.
type targets struct {
	root, sibling, secret string
	tcp                   net.Listener
	udp                   net.PacketConn
	abstract              net.Listener
	victim                *exec.Cmd
	before                string // the listing and hashes of what lies outside the root
}

func newTargets(t *testing.T) *targets {
	t.Helper()
	parent := t.TempDir()
	os.Chmod(parent, 0o755)
	tg := &targets{
		root:    filepath.Join(parent, "root"),
		sibling: filepath.Join(parent, "sibling"),
		secret:  filepath.Join(parent, "secret.txt"),
	}
	for _, d := range []string{tg.root, tg.sibling} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(tg.secret, []byte("the-host-secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if tg.tcp, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if tg.udp, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("shelter-confine-%d-%d", os.Getpid(), time.Now().UnixNano())
	if tg.abstract, err = net.Listen("unix", "@"+name); err != nil {
		t.Fatal(err)
	}
	tg.victim = exec.Command("sleep", "600")
	if err := tg.victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tg.tcp.Close()
		tg.udp.Close()
		tg.abstract.Close()
		tg.victim.Process.Kill()
		tg.victim.Wait()
	})
	tg.before = outsideTree(t, parent, tg.root)
	return tg
}

// args are the attack's arguments, name=value each.
func (tg *targets) args() []string {
	return []string{
		"sibling=" + tg.sibling,
		"secret=" + tg.secret,
		"tcp=" + strconv.Itoa(tg.tcp.Addr().(*net.TCPAddr).Port),
		"udp=" + strconv.Itoa(tg.udp.LocalAddr().(*net.UDPAddr).Port),
		"victim=" + strconv.Itoa(tg.victim.Process.Pid),
		"abstract=" + strings.TrimPrefix(tg.abstract.Addr().String(), "@"),
	}
}

// outsideTree lists every file under parent but those under root, with
// the hash of each regular file's content.
func outsideTree(t *testing.T, parent, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(parent, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p == root {
			return filepath.SkipDir
		}
		fmt.Fprintf(&b, "%s %s", strings.TrimPrefix(p, parent), d.Type())
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}

// judge checks on the host that the attack reached nothing: what the run
// printed, the tree outside the root, the listeners and the processes.
func (tg *targets) judge(t *testing.T, out string) {
	t.Helper()
	for _, row := range []string{"write", "read", "tcp", "udp-sent", "kill-shelter", "kill-other", "abstract"} {
		if !strings.Contains(out, row+" ") {
			t.Errorf("the attack did not report row %s:\n%s", row, out)
		}
		if row != "udp-sent" && strings.Contains(out, row+" DONE") {
			t.Errorf("row %s succeeded inside the sandbox:\n%s", row, out)
		}
	}
	if strings.Contains(out, "the-host-secret") {
		t.Errorf("the secret outside the root was read:\n%s", out)
	}
	if after := outsideTree(t, filepath.Dir(tg.root), tg.root); after != tg.before {
		t.Errorf("the tree outside the root changed:\nbefore:\n%s\nafter:\n%s", tg.before, after)
	}
	if !proctest.Alive(tg.victim.Process.Pid) {
		t.Errorf("the unrelated process died")
	}
	// What the program sent would have arrived before the test's own.
	if ok, err := proctest.FirstIsSentinel(tg.tcp); err != nil || !ok {
		t.Errorf("the TCP listener got a connection from the sandbox first (%v)", err)
	}
	if _, err := tg.udp.WriteTo([]byte("sentinel"), tg.udp.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, _, err := tg.udp.ReadFrom(buf); err != nil || string(buf[:n]) != "sentinel" {
		t.Errorf("the UDP listener got %q first (%v): the sandbox's datagram", buf[:n], err)
	}
	if ok, err := proctest.FirstIsSentinel(tg.abstract); err != nil || !ok {
		t.Errorf("the abstract socket got a connection from the sandbox first (%v)", err)
	}
}

// shelterRun runs the CLI as its own process (testscript's Main runs this
// binary as shelter), in the root, with PATH limited to the system's
// directories, and returns what it printed and its exit status.
func shelterRun(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Args[0] = "shelter"
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/local/go/bin:/usr/bin:/bin", "HOME=" + dir, "SHELTER_TEST_SECRET=hunter2"}, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
			t.Errorf("shelter was killed by %v:\n%s", ws.Signal(), out.String())
		}
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), status
}

func needConfinement(t *testing.T) {
	t.Helper()
	if missing := spawn.Probe().Missing(false); len(missing) > 0 {
		t.Skipf("this host cannot confine: %s (%s)", strings.Join(missing, ", "), spawn.Probe())
	}
}

// lookSystem finds a program in the system's directories.
func lookSystem(t *testing.T, name string) string {
	t.Helper()
	for _, dir := range []string{"/usr/local/go/bin", "/usr/local/bin", "/usr/bin", "/bin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	t.Skipf("%s is not installed in the system's directories", name)
	return ""
}

// The script an agent runs records shelter's pid for the attack, runs it,
// and shows the rest of the script still runs.
const pidThen = `echo $$ > shelterpid; `

func TestConfineAllowedExternal(t *testing.T) {
	needConfinement(t)
	lookSystem(t, "python3")
	tg := newTargets(t)
	if err := os.WriteFile(filepath.Join(tg.root, "attack.py"), []byte(attackPy), 0o644); err != nil {
		t.Fatal(err)
	}
	out, status := shelterRun(t, tg.root, nil, append([]string{"--profile", "sandbox", "--allow-external", "python3",
		"-c", pidThen + `python3 attack.py "$@"; echo "the script went on"`, "shelter"}, tg.args()...)...)
	if status != 0 || !strings.Contains(out, "the script went on") {
		t.Errorf("status %d; the rest of the script did not run:\n%s", status, out)
	}
	tg.judge(t, out)
}

func TestConfineDeclaredProgram(t *testing.T) {
	needConfinement(t)
	python := lookSystem(t, "python3")
	tg := newTargets(t)
	decl := fmt.Sprintf(`commands:
  python3:
    executable: %s
    root:
      positionals:
        - {name: script, path_under: .}
      tail: after-dash-dash
`, python)
	yaml := filepath.Join(tg.root, "tools.yaml")
	for name, content := range map[string]string{yaml: decl, filepath.Join(tg.root, "attack.py"): attackPy} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, status := shelterRun(t, tg.root, nil, append([]string{"--profile", "sandbox", "--tools", yaml,
		"-c", pidThen + `python3 attack.py -- "$@"; echo "the script went on"`, "shelter"}, tg.args()...)...)
	if status != 0 || !strings.Contains(out, "the script went on") {
		t.Errorf("status %d; the rest of the script did not run:\n%s", status, out)
	}
	tg.judge(t, out)
}

// goDecl writes a declaration of the system's go with its test verb into
// dir, and returns its path.
func goDecl(t *testing.T, dir string) string {
	t.Helper()
	decl := fmt.Sprintf(`commands:
  go:
    executable: %s
    verbs:
      test:
        flags:
          v: {}
        positionals:
          - {name: package, many: true}
`, lookSystem(t, "go"))
	path := filepath.Join(dir, "go-tools.yaml")
	if err := os.WriteFile(path, []byte(decl), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfineGoTest runs the agent's own Go test through the declared go
// (as examples/tools.yaml declares it), with the host's build cache shared by
// --allow-write, as an operator shares a module cache.
func TestConfineGoTest(t *testing.T) {
	needConfinement(t)
	lookSystem(t, "go")
	nobody := os.Getenv(proctest.NobodyEnv) != ""
	if nobody && os.Getenv("SHELTER_SOAK") == "" {
		t.Skip("as nobody the build cache is cold: a first go test compiles the standard library for minutes; SHELTER_SOAK=1 runs it")
	}
	tg := newTargets(t)
	mod := filepath.Join(tg.root, "attack")
	if err := os.Mkdir(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		filepath.Join(mod, "go.mod"):         "module attack\n\ngo 1.26\n",
		filepath.Join(mod, "attack_test.go"): attackGo,
		filepath.Join(tg.root, "args"):       strings.Join(tg.args(), " ") + "\n",
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache := strings.TrimSpace(string(gocache))
	if nobody {
		cache = t.TempDir() // nobody's own, cold
	}
	out, status := shelterRun(t, tg.root, nil, "--profile", "sandbox", "--tools", goDecl(t, t.TempDir()), "--timeout", "15m",
		"--allow-write", cache, "--env", "GOCACHE="+cache, "--env", "GOTOOLCHAIN=local", "--env", "GOFLAGS=-count=1",
		"-c", pidThen+`cd attack && go test -v ./...; echo "the script went on"`)
	if status != 0 || !strings.Contains(out, "the script went on") || !strings.Contains(out, "--- PASS: TestAttack") {
		t.Errorf("status %d; the agent's test did not run, or the script did not go on:\n%s", status, out)
	}
	tg.judge(t, out)
}

// TestConfineAsNobody runs the confinement tests again as an
// unprivileged user.
func TestConfineAsNobody(t *testing.T) {
	proctest.AsNobody(t, "^TestConfine(AllowedExternal|DeclaredProgram|GoTest|KeepsWorking)")
}

// keepsWorkingGo is an agent's Go test that needs its own loopback.
const keepsWorkingGo = `package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "served on loopback")
	}))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	t.Log(string(b))
}
`

// TestConfineKeepsWorking: what an agent's everyday work needs keeps
// working inside: files under the root and $TMPDIR, Python's standard
// library, git in a repository under the root, the system's CA
// certificates, and (as root, whose build cache is warm) a go test that
// serves on its own 127.0.0.1.
func TestConfineKeepsWorking(t *testing.T) {
	needConfinement(t)
	lookSystem(t, "python3")
	lookSystem(t, "git")
	tg := newTargets(t)
	script := `set -e
sh -c 'echo in-root > note.txt; echo in-tmp > "$TMPDIR/t"; cat note.txt "$TMPDIR/t"'
python3 -c 'import json, sqlite3, ssl, tempfile, hashlib; c = ssl.create_default_context(); print("certs", c.cert_store_stats()["x509_ca"] > 0); print(json.dumps({"ok": True}))'
sh -c 'head -1 /etc/ssl/certs/ca-certificates.crt'
git init -q repo && cd repo && git config user.email a@b && git config user.name a
echo hi > f && git add f && git commit -qm first && git status --short && git log --oneline | wc -l
echo done`
	out, status := shelterRun(t, tg.root, nil, "--profile", "sandbox", "--allow-external", "python3",
		"--allow-external", "git", "--allow-external", "sh", "-c", script)
	for _, want := range []string{"in-root\nin-tmp\n", "certs True\n", `{"ok": true}`, "-----BEGIN CERTIFICATE-----", "1\ndone\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("status %d; output lacks %q:\n%s", status, want, out)
		}
	}
	if status != 0 {
		t.Errorf("status %d:\n%s", status, out)
	}
	if os.Getenv(proctest.NobodyEnv) != "" {
		return // a cold build cache: see TestConfineGoTest
	}
	lookSystem(t, "go")
	mod := filepath.Join(tg.root, "web")
	os.Mkdir(mod, 0o755)
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module web\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "web_test.go"), []byte(keepsWorkingGo), 0o644)
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	cache := strings.TrimSpace(string(gocache))
	out, status = shelterRun(t, tg.root, nil, "--profile", "sandbox", "--tools", goDecl(t, t.TempDir()),
		"--allow-write", cache, "--env", "GOCACHE="+cache, "--env", "GOTOOLCHAIN=local", "--env", "GOFLAGS=-count=1",
		"-c", `cd web && go test -v ./...`)
	if status != 0 || !strings.Contains(out, "served on loopback") {
		t.Errorf("go test with an httptest server: status %d\n%s", status, out)
	}
}

// TestRootChildReadsNoEnviron is the reproduction of a child of root
// reading the CLI's own environment: SECRET=x shelter --profile agent -c
// 'sh -c "cat /proc/$PPID/environ"'.
func TestRootChildReadsNoEnviron(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the capabilities matter for root's children")
	}
	out, status := shelterRun(t, t.TempDir(), []string{"SECRET=shelter-secret-41d"}, "--profile", "agent",
		"-c", `sh -c 'cat /proc/$PPID/environ'; echo "status $?"`)
	if strings.Contains(out, "shelter-secret-41d") || !strings.Contains(out, "status 1") || status != 0 {
		t.Errorf("status %d:\n%s", status, out)
	}
}
