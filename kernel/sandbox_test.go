package kernel_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// outsideMarker is in every file outside the sandbox's root: no stdout or
// stderr may ever hold it.
const outsideMarker = "OUTSIDE-MARKER-4f1c"

// escapeTree makes a directory holding the sandbox's root and a tree
// outside it, with links from the root to the outside: absolute,
// relative, and a chain of them.
func escapeTree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(outside, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		"secret":     outsideMarker + "\n",
		"sub/secret": outsideMarker + "\n",
		"script.sh":  "echo " + outsideMarker + "; echo ran > " + filepath.Join(outside, "ran") + "\n",
	} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "inside"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"abslink": outside,
		"rellink": "../outside",
		"chain1":  "chain2",
		"chain2":  "rellink/sub",
		"etc":     "/etc",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

// treeHash lists a tree and hashes every file in it.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		line := p + " " + d.Type().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func sandboxSession(t *testing.T, root string) *kernel.Session {
	t.Helper()
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root = root
	return newSession(t, cfg, kernel.SessionOptions{Dir: root, DiscardSpills: true})
}

// The escape corpus of docs/sandbox.md: every vector fails with a line
// that says why, reads nothing from outside, and changes nothing there.
func TestSandboxEscapeCorpus(t *testing.T) {
	root, outside := escapeTree(t)
	before := treeHash(t, outside)
	s := sandboxSession(t, root)
	for _, tc := range []struct {
		name, script string
		refusal      string // a part of the line stderr must hold
	}{
		{"dotdot read", `read l < ../outside/secret; echo "$l"`, "outside the sandbox root"},
		{"absolute read", `read l < ` + outside + `/secret; echo "$l"`, "outside the sandbox root"},
		{"absolute link", `read l < abslink/secret; echo "$l"`, "outside the sandbox root"},
		{"relative link", `read l < rellink/secret; echo "$l"`, "outside the sandbox root"},
		{"link chain", `read l < chain1/secret; echo "$l"`, "outside the sandbox root"},
		{"etc passwd", `read l < /etc/passwd; echo "$l"`, "outside the sandbox root"},
		{"etc link", `read l < etc/passwd; echo "$l"`, "outside the sandbox root"},
		{"substitution", `echo "$(< ../outside/secret)"`, "outside the sandbox root"},
		{"mapfile", `mapfile -t a < ` + outside + `/secret; echo "${a[@]}"`, "outside the sandbox root"},
		{"proc root", `read l < /proc/self/root` + outside + `/secret; echo "$l"`, "not readable"},
		{"proc environ", `e=$(< /proc/self/environ); echo "$e"`, "not readable"},
		{"write dotdot", `echo x > ../outside/new`, "outside the sandbox root"},
		{"write absolute", `echo x > ` + outside + `/new`, "outside the sandbox root"},
		{"append link", `echo x >> rellink/secret`, "outside the sandbox root"},
		{"write chain", `echo x > chain1/new`, "outside the sandbox root"},
		{"cd dotdot", `cd ..`, "cd: ..: outside the sandbox root; allowed: paths under"},
		{"cd absolute", `cd /`, "cd: /: outside the sandbox root"},
		{"cd link", `cd abslink`, "cd: abslink: outside the sandbox root"},
		{"pushd", `pushd .. >/dev/null`, "outside the sandbox root"},
		{"source", `source ../outside/script.sh`, "outside the sandbox root"},
		{"test", `test -e ` + outside + `/secret && echo ` + outsideMarker + `; [ -r rellink/secret ] && echo ` + outsideMarker + `; true`, ""},
		{"process substitution", `cat <(echo x)`, "process substitution is not available in the sandbox profile"},
		{"fd read", `exec 3< ../outside/secret; read l <&3; echo "$l"`, "outside the sandbox root"},
		{"fd write", `exec 4> ` + outside + `/new; echo x >&4`, "outside the sandbox root"},
		{"fd read-write link", `exec 5<> rellink/secret; cat <&5`, "outside the sandbox root"},
		{"named fd", `exec {fd}< chain1/secret; read -u "$fd" l; echo "$l"`, "outside the sandbox root"},
		{"per-command fd", `read l 3< abslink/secret <&3; echo "$l"`, "outside the sandbox root"},
		{"clobber", `echo x >| rellink/secret`, "outside the sandbox root"},
		{"fd of shelter", `read l < /dev/fd/3; read m < /proc/self/fd/4; echo "$l$m"`, "bad file descriptor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, s, tc.script)
			if strings.Contains(res.Stdout+res.Stderr, outsideMarker) {
				t.Fatalf("read outside: stdout %q stderr %q", res.Stdout, res.Stderr)
			}
			if !strings.Contains(res.Stderr+issueText(res), tc.refusal) {
				t.Errorf("stderr %q (issues %q), want a line with %q", res.Stderr, issueText(res), tc.refusal)
			}
			if strings.Count(strings.TrimSuffix(res.Stderr, "\n"), "\n") > 1 {
				t.Errorf("more than a line or two of refusal: %q", res.Stderr)
			}
			if res.Cwd != root && !strings.HasPrefix(res.Cwd, root+"/") {
				t.Errorf("cwd %s left the root", res.Cwd)
			}
		})
	}
	// Globs list nothing outside.
	res := run(t, s, `echo `+outside+`/* /etc/* abslink/* rellink/*`)
	if strings.Contains(res.Stdout, outside+"/secret") || strings.Contains(res.Stdout, "/etc/passwd") || strings.Contains(res.Stdout, "abslink/secret") {
		t.Errorf("a glob listed outside: %q", res.Stdout)
	}
	if after := treeHash(t, outside); after != before {
		t.Errorf("the outside tree changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	// What is inside works as usual.
	res = run(t, s, `read l < inside; echo "$l"; echo ok > made; read m < `+root+`/made; echo "$m"; cd /dev/null 2>/dev/null; echo x > /dev/null; echo $HOME; echo $TMPDIR`)
	want := fmt.Sprintf("inside\nok\n%[1]s/home\n%[1]s\n", s.TempDir())
	if res.Stdout != want || !strings.HasPrefix(s.TempDir(), root+"/.shelter/") {
		t.Errorf("inside the root: %q (stderr %q), want %q, a HOME in a TMPDIR in %s/.shelter", res.Stdout, res.Stderr, want, root)
	}
}

func issueText(res kernel.Result) string {
	var b strings.Builder
	for _, is := range res.Issues {
		b.WriteString(is.Message + "\n")
	}
	return b.String()
}

// A directory swapped for a link to outside while a loop reads through
// it: no read ever lands outside, since every open resolves beneath the
// root at the moment it happens.
func TestSandboxSwappedLink(t *testing.T) {
	root, outside := escapeTree(t)
	swap := filepath.Join(root, "swap")
	if err := os.Mkdir(swap, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(swap, "secret"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link, parked := filepath.Join(root, "swaplink"), filepath.Join(root, "parked")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	s := sandboxSession(t, root)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	swaps := 0
	go func() {
		defer wg.Done()
		for !stop.Load() {
			os.Rename(swap, parked)
			os.Rename(link, swap)
			os.Rename(swap, link)
			os.Rename(parked, swap)
			swaps++
		}
	}()
	res := run(t, s, `for i in {1..300}; do read l < swap/secret 2>/dev/null && echo "$l"; done`)
	stop.Store(true)
	wg.Wait()
	if strings.Contains(res.Stdout, outsideMarker) {
		t.Fatalf("a read landed outside after %d swaps: %q", swaps, res.Stdout)
	}
	if !strings.Contains(res.Stdout, "inside") {
		t.Logf("no read landed inside either (%d swaps)", swaps)
	}
}

// In every profile, the call's streams are what /dev/stdout and friends
// name, and shelter's own /proc entries are refused.
func TestOpenerStreamsAndProc(t *testing.T) {
	for _, p := range kernel.Profiles() {
		t.Run(string(p), func(t *testing.T) {
			cfg, _ := kernel.Preset(p)
			cfg.Root = t.TempDir()
			cfg.LookupEnv = func(name string) (string, bool) {
				if name == "SHELTER_TEST_SECRET" {
					return outsideMarker, true
				}
				return os.LookupEnv(name)
			}
			s := newSession(t, cfg, kernel.SessionOptions{Dir: cfg.Root, DiscardSpills: true})
			res := runWith(t, s, `echo out > /dev/stdout; echo fd > /proc/self/fd/1; echo pid > /proc/$$/fd/1; echo err > /dev/stderr; echo fd2 > /dev/fd/2
read l < /dev/stdin; echo "in=$l"
e=$(< /proc/self/environ); e=$(< /proc/$$/environ); e=$(< /proc/thread-self/environ)
for fd in 3 4 5 6 7 8 9 10; do read l < /proc/$$/fd/$fd; read l < /proc/self/fd/$fd; done 2>/dev/null
echo end`, kernel.RunOptions{Stdin: strings.NewReader("typed\n")})
			if res.Stdout != "out\nfd\npid\nin=typed\nend\n" {
				t.Errorf("stdout %q", res.Stdout)
			}
			if !strings.HasPrefix(res.Stderr, "err\nfd2\n") || strings.Count(res.Stderr, "shelter's own /proc entries are not readable") != 3 {
				t.Errorf("stderr %q", res.Stderr)
			}
			if strings.Contains(res.Stdout+res.Stderr, outsideMarker) {
				t.Errorf("the host's environment leaked")
			}
		})
	}
}

// type and command -v say what the session may run: under a policy that
// denies programs from PATH, only the allowed ones, as resolved at start.
func TestSandboxTypeNamesOnlyRunnable(t *testing.T) {
	root := t.TempDir()
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root = root
	cfg.AllowExternal = []string{"sh"}
	s := newSession(t, cfg, kernel.SessionOptions{Dir: root, DiscardSpills: true})
	res := run(t, s, `command -v ls; echo "ls $?"; type -P passwd; echo "passwd $?"; command -v sh`)
	if !strings.HasPrefix(res.Stdout, "ls 1\npasswd 1\n/") || !strings.HasSuffix(res.Stdout, "/sh\n") {
		t.Errorf("stdout %q", res.Stdout)
	}
}

// A declared program's environment: an injection variable the agent
// exports never reaches it, one the embedder set stands; in the sandbox
// the agent's own exports stay out.
func TestProgramEnv(t *testing.T) {
	for _, p := range kernel.Profiles() {
		t.Run(string(p), func(t *testing.T) {
			cfg, _ := kernel.Preset(p)
			cfg.Root = t.TempDir()
			cfg.Env = map[string]string{"GIT_CONFIG_GLOBAL": "/embedder/gitconfig", "PAGER": "cat"}
			var got []string
			cfg.Tools = []kernel.Tool{envProbe{&got}}
			s := newSession(t, cfg, kernel.SessionOptions{Dir: cfg.Root, DiscardSpills: true})
			res := run(t, s, `export LD_PRELOAD=/x.so GIT_CONFIG_COUNT=1 GIT_CONFIG_GLOBAL=/agent PAGER='id>f' BASH_ENV=/x MINE=1; probe`)
			if res.ExitCode != 0 {
				t.Fatalf("probe: %d %q", res.ExitCode, res.Stderr)
			}
			env := strings.Join(got, "\n")
			for _, bad := range []string{"LD_PRELOAD", "GIT_CONFIG_COUNT", "BASH_ENV", "/agent", "id>f"} {
				if strings.Contains(env, bad) {
					t.Errorf("%s reached the program:\n%s", bad, env)
				}
			}
			for _, good := range []string{"GIT_CONFIG_GLOBAL=/embedder/gitconfig", "PAGER=cat", "PWD=" + cfg.Root} {
				if !strings.Contains(env, good+"\n") {
					t.Errorf("%s is missing:\n%s", good, env)
				}
			}
			if mine := strings.Contains(env, "MINE=1"); mine != (p != kernel.ProfileSandbox) {
				t.Errorf("the agent's own export reached the program: %v, in %s", mine, p)
			}
		})
	}
}

// envProbe records the environment a declared program would get.
type envProbe struct{ got *[]string }

func (envProbe) Name() string                 { return "probe" }
func (envProbe) Kind() kernel.Kind            { return kernel.Wrapped }
func (envProbe) Description() string          { return "Record ProgramEnv." }
func (envProbe) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (p envProbe) Run(_ context.Context, c *kernel.Call) error {
	*p.got = append(c.ProgramEnv(nil), "")
	return nil
}

// One session cannot read another's pipes through shelter's /proc: with
// session A waiting on its stdin, session B tries every descriptor of
// shelter's by every /proc name and reads nothing of A's input.
func TestSessionsCannotReadEachOther(t *testing.T) {
	k, err := kernel.New(kernel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	fmt.Fprintf(pw, "%s\n", outsideMarker)
	pw.Close()
	// A holds its stdin unread until B is done: it waits on a FIFO first.
	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan kernel.Result, 1)
	go func() {
		res, _ := a.Run(context.Background(), `read -r go < `+gate+`; read -r l; echo "a: $l"`, kernel.RunOptions{Stdin: pr})
		done <- res
	}()
	res := run(t, b, `for fd in {0..40}; do
  for p in /proc/$$/fd/$fd /proc/self/fd/$fd /dev/fd/$fd /proc/thread-self/fd/$fd; do
    read -r -t 0.01 l < $p 2>/dev/null && echo "b: $l"
  done
done
for task in $(echo /proc/$$/task/*); do read -r -t 0.01 l < $task/fd/0 2>/dev/null && echo "b: $l"; done
echo done`)
	if err := os.WriteFile(gate, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ra := <-done
	if strings.Contains(res.Stdout, outsideMarker) || res.Stdout != "done\n" {
		t.Errorf("session B read: %q", res.Stdout)
	}
	if ra.Stdout != "a: "+outsideMarker+"\n" {
		t.Errorf("session A read %q", ra.Stdout)
	}
}
