package kernel_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// TestIdleSessionsTouchNoDisk creates and closes 1,000 sessions in a child
// test process whose temporary directory is its own, and asserts that the
// directory's listing is the same before and after: neither a session's
// $TMPDIR nor its spill directory is made until something needs it. The
// child also bounds the heap and descriptors an idle session holds.
func TestIdleSessionsTouchNoDisk(t *testing.T) {
	t.Parallel()
	if os.Getenv("SHELTER_IDLE_CHILD") == "1" {
		idleChild(t)
		return
	}
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIdleSessionsTouchNoDisk$", "-test.v")
	cmd.Env = append(os.Environ(), "SHELTER_IDLE_CHILD=1", "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestIdleSessionsTouchNoDisk") {
		t.Fatalf("the child ran no test:\n%s", out)
	}
	for line := range strings.Lines(string(out)) {
		if strings.Contains(line, "heap per idle session") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

func idleChild(t *testing.T) {
	parent := os.TempDir()
	dir := filepath.Join(parent, "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	before := listing(t, parent)
	k, err := kernel.New(withLaunchers(kernel.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	// The first session opens what the process shares (/dev/null, and
	// the runtime's poller with it).
	warm, err := k.NewSession(kernel.SessionOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	warm.Close()
	fds := openFDs(t)
	var heap0, heap1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heap0)
	const n = 1000
	sessions := make([]*kernel.Session, n)
	for i := range sessions {
		if sessions[i], err = k.NewSession(kernel.SessionOptions{Dir: dir}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&heap1)
	per := (int64(heap1.HeapAlloc) - int64(heap0.HeapAlloc)) / n
	t.Logf("heap per idle session: %d bytes", per)
	if per > 12<<10 {
		t.Errorf("an idle session holds %d bytes of heap; want at most 12 KiB", per)
	}
	if got := openFDs(t); got > fds {
		t.Errorf("%d idle sessions hold %d file descriptors; want none", n, got-fds)
	}
	if got := listing(t, parent); !slices.Equal(got, before) {
		t.Errorf("open sessions made %v in %s", got, parent)
	}
	for _, s := range sessions {
		if _, err := os.Lstat(s.TempDir()); !os.IsNotExist(err) {
			t.Fatalf("TempDir %s of an idle session: %v", s.TempDir(), err)
		}
		if filepath.Dir(s.TempDir()) != parent || filepath.Dir(s.SpillDir()) != parent {
			t.Fatalf("TempDir %s, SpillDir %s: not in %s", s.TempDir(), s.SpillDir(), parent)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := listing(t, parent); !slices.Equal(got, before) {
		t.Errorf("closed sessions left %v in %s", got, parent)
	}
	runtime.KeepAlive(sessions)
}

func listing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// openFDs counts the process's open descriptors where the system lists
// them; elsewhere it is zero.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(entries)
}

func TestSpillDirMadeOnFirstSpill(t *testing.T) {
	t.Parallel()
	k, err := kernel.New(withLaunchers(kernel.Config{OutputLimit: 16}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir(), DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := run(t, s, "echo small")
	if res.Truncated {
		t.Fatalf("small output truncated: %+v", res)
	}
	if _, err := os.Lstat(s.SpillDir()); !os.IsNotExist(err) {
		t.Fatalf("spill directory before any spill: %v", err)
	}
	res = run(t, s, "i=0; while [ $i -lt 100 ]; do echo line $i; i=$((i+1)); done; echo err >&2")
	if !res.Truncated || filepath.Dir(res.SpillPath) != s.SpillDir() || res.StderrSpillPath != "" {
		t.Fatalf("spill %q in %q: %+v", res.SpillPath, s.SpillDir(), res)
	}
	if !strings.Contains(res.Stdout, "full output at "+res.SpillPath+"]") {
		t.Errorf("the marker does not name %s:\n%s", res.SpillPath, res.Stdout)
	}
	b, err := os.ReadFile(res.SpillPath)
	if err != nil || !strings.HasPrefix(string(b), "line 0\nline 1\n") || !strings.HasSuffix(string(b), "line 99\n") || int64(len(b)) != res.StdoutBytes {
		t.Errorf("spill file: %v, %d bytes of %d", err, len(b), res.StdoutBytes)
	}
	if fi, err := os.Stat(s.SpillDir()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("spill directory: %v %v", fi, err)
	}
}

// TestTempDirMadeBeforeFirstUse runs, in fresh sessions, each way a
// script may first reach $TMPDIR; each finds it there.
func TestTempDirMadeBeforeFirstUse(t *testing.T) {
	t.Parallel()
	scripts := []struct{ name, script, stdout string }{
		{"program", `/usr/bin/test -d "$TMPDIR" && /bin/echo yes`, "yes\n"},
		{"redirect", `echo hi > "$TMPDIR/f"; read -r x < "$TMPDIR/f"; echo $x`, "hi\n"},
		{"test", `[ -d "$TMPDIR" ] && echo yes`, "yes\n"},
		{"cd", `cd "$TMPDIR" && echo yes`, "yes\n"},
		{"glob", `: > "$TMPDIR/a"; cd "$TMPDIR"; echo *`, "a\n"},
		{"process substitution", `read -r x < <(echo ps); echo $x`, "ps\n"},
		{"eval", `eval 'read -r x < <(echo ev)'; echo $x`, "ev\n"},
		{"tool", `jobs; /usr/bin/test -d "$TMPDIR" && echo yes`, "yes\n"},
	}
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
			res := run(t, s, sc.script)
			if res.Stdout != sc.stdout || res.ExitCode != 0 {
				t.Errorf("%q: %d %q %q; want %q", sc.script, res.ExitCode, res.Stdout, res.Stderr, sc.stdout)
			}
			if fi, err := os.Stat(s.TempDir()); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("TempDir: %v %v", fi, err)
			}
			dir := s.TempDir()
			s.Close()
			if _, err := os.Lstat(dir); !os.IsNotExist(err) {
				t.Errorf("Close left %s: %v", dir, err)
			}
		})
	}
}

func TestTempDirNamedAndUnmadeUntilNeeded(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := run(t, s, `echo "$TMPDIR"; x=1; echo $((x+1))`)
	if res.Stdout != s.TempDir()+"\n2\n" {
		t.Errorf("stdout %q; want $TMPDIR %s", res.Stdout, s.TempDir())
	}
	if _, err := os.Lstat(s.TempDir()); !os.IsNotExist(err) {
		t.Errorf("TempDir after a call that did not need it: %v", err)
	}
}

// TestTempDirNotTakenOver: a directory someone else made under the
// session's $TMPDIR name is never used; the program that needed it does
// not run and the line says why.
func TestTempDirNotTakenOver(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	if err := os.Mkdir(s.TempDir(), 0o777); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(s.TempDir())
	res := run(t, s, `/bin/echo ran`)
	if res.ExitCode != 126 || res.Stdout != "" || !strings.Contains(res.Stderr, "exists already and is not this session's") {
		t.Errorf("%d %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	s.Close()
	if _, err := os.Stat(s.TempDir()); err != nil {
		t.Errorf("Close removed a directory it did not make: %v", err)
	}
}

func TestJobLogMakesSpillDir(t *testing.T) {
	t.Parallel()
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	res := run(t, s, "echo job &")
	if len(res.Jobs) > 1 {
		t.Fatalf("jobs: %+v", res.Jobs)
	}
	run(t, s, "wait")
	log := filepath.Join(s.SpillDir(), "job-1.log")
	if b, err := os.ReadFile(log); err != nil || string(b) != "job\n" {
		t.Errorf("job log %s: %q, %v", log, b, err)
	}
}

// TestSpillFileHoldsEveryByteInOrder: what builtins and a program write
// past the limit reaches the buffered spill file whole and in order by
// the time Run returns.
func TestSpillFileHoldsEveryByteInOrder(t *testing.T) {
	t.Parallel()
	cfg, _ := kernel.Preset(kernel.ProfileAgent)
	s := newSession(t, cfg, kernel.SessionOptions{})
	res := run(t, s, "for ((i = 1; i <= 20000; i++)); do echo b$i; done; /usr/bin/seq 1 20000; echo end")
	var want strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&want, "b%d\n", i)
	}
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	want.WriteString("end\n")
	b, err := os.ReadFile(res.SpillPath)
	if err != nil || string(b) != want.String() || res.StdoutBytes != int64(want.Len()) {
		t.Errorf("spill file: %v, %d bytes, %d written, %d expected", err, len(b), res.StdoutBytes, want.Len())
	}
	if !strings.HasSuffix(res.Stdout, "19999\n20000\nend\n") {
		t.Errorf("tail: %q", res.Stdout[len(res.Stdout)-40:])
	}
}

// TestSandboxSessionDirsInRoot: in the sandbox profile the session's
// directories live in ROOT/.shelter, which an idle session does not make.
func TestSandboxSessionDirsInRoot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root, cfg.OutputLimit = root, 16
	k, err := kernel.New(withLaunchers(cfg))
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	real, _ := filepath.EvalSymlinks(root)
	shelter := filepath.Join(real, ".shelter")
	if filepath.Dir(s.TempDir()) != shelter || filepath.Dir(s.SpillDir()) != shelter {
		t.Fatalf("TempDir %s, SpillDir %s: not in %s", s.TempDir(), s.SpillDir(), shelter)
	}
	if got := listing(t, root); len(got) != 0 {
		t.Fatalf("an idle sandbox session made %v", got)
	}
	res := run(t, s, `echo hi > "$TMPDIR/f"; read -r x < "$TMPDIR/f"; echo $x; echo 0123456789abcdefghij`)
	if res.ExitCode != 0 || filepath.Dir(res.SpillPath) != s.SpillDir() || !strings.HasPrefix(res.Stdout, "hi\n") {
		t.Fatalf("%+v", res)
	}
	if got := listing(t, shelter); len(got) != 3 {
		t.Errorf("ROOT/.shelter holds %v; want .gitignore, the temp and spill directories", got)
	}
	if b, err := os.ReadFile(filepath.Join(shelter, ".gitignore")); err != nil || string(b) != "*\n" {
		t.Errorf(".gitignore: %q, %v; want \"*\\n\"", b, err)
	}
	home := filepath.Join(s.TempDir(), "home")
	// The output limit is 16 bytes: the paths are compared in the script.
	if res := run(t, s, `[ "$HOME" = '`+home+`' ] && cd && [ "$PWD" = '`+home+`' ]`); res.ExitCode != 0 {
		t.Errorf("HOME and cd: status %d (stderr %q); want %s, the session's own", res.ExitCode, res.Stderr, home)
	}
	s2, err := k.NewSession(kernel.SessionOptions{DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	if res := run(t, s2, `[ "$HOME" != '`+home+`' ] && [ "$HOME" = "$TMPDIR/home" ] && [ "${HOME#'`+shelter+`/'}" != "$HOME" ]`); res.ExitCode != 0 {
		t.Errorf("a second session's HOME: status %d; want its own, in %s", res.ExitCode, shelter)
	}
	s2.Close()
	s.Close()
	if got := listing(t, shelter); len(got) != 1 {
		t.Errorf("after Close ROOT/.shelter holds %v; want .gitignore alone", got)
	}
}
