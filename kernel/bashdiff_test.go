package kernel_test

// The differential suite: every case in testdata/bashdiff runs three times,
// each in a fresh temporary directory holding the same fixture files —
// through a shelter session, through real `bash -c` and through a bare
// mvdan.cc/sh runner with its default handlers — and stdout and exit status
// are compared (stderr is not: its wording is nobody's contract).
//
// A case file is a txtar archive whose comment says what the file covers.
// Each section is one case: its name is the case's name and its body the
// script, run as given. A section named NAME.stdin is the input of case
// NAME; without one a case's stdin is /dev/null. A script whose first line
// is
//
//	# gap: why mvdan/sh differs and why shelter cannot fix it yet
//
// is a known gap: it is reported, not failed, and it fails once shelter
// equals bash, so that the list of gaps stays honest. The static pass
// notes a known gap before the run (TestGapNotes); a gap it cannot see in
// the script's text, as it depends on values known only when it runs, is
// marked
//
//	# gap (run time): why
//
// instead. Nothing else marks a case.
//
// SHELTER_BASHDIFF_REPORT=1 logs every failing case in full (script, stdin,
// bash's, shelter's and mvdan's stdout and status, shelter's stderr) and
// fails once at the end, instead of one short failure per case.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

const (
	bashdiffDir = "testdata/bashdiff"
	// caseTimeout bounds each of a case's runs by shelter and bare
	// mvdan/sh; a run past it is a difference like any other (bare
	// mvdan/sh hangs in a few cases, and its runs wait this out).
	caseTimeout = 4 * time.Second
	// bashTimeout bounds bash's: bash is the reference and never hangs,
	// so only a loaded machine makes it slow.
	bashTimeout = 30 * time.Second
	// caseWorkers runs cases concurrently: most of a case's time is spent
	// waiting on processes, so more workers than cores keep both busy.
	caseWorkers = 16
	gapPrefix   = "# gap:"
	// runTimeGapPrefix marks a gap the static pass cannot note.
	runTimeGapPrefix = "# gap (run time):"
)

// bashCase is one script of a case file.
type bashCase struct {
	File, Name string
	Script     string
	Stdin      *string // nil: /dev/null
	Gap        string  // non-empty: a known gap, and why
	RunTime    bool    // the gap shows only at run time: no note is due
}

func (c bashCase) id() string { return strings.TrimSuffix(c.File, ".txtar") + "/" + c.Name }

// outcome is what one run of a case printed and returned.
type outcome struct {
	Stdout string
	Status int
	Stderr string
	Err    error // the runner itself failed (not the script)
}

func (o outcome) sameAs(p outcome) bool {
	return o.Err == nil && p.Err == nil && o.Stdout == p.Stdout && o.Status == p.Status
}

func (o outcome) String() string {
	if o.Err != nil {
		return fmt.Sprintf("error %v (stdout %q)", o.Err, o.Stdout)
	}
	return fmt.Sprintf("status %d stdout %q", o.Status, o.Stdout)
}

// caseRun holds a case's three outcomes.
type caseRun struct {
	bashCase
	bash, shelter, mvdan outcome
	took                 [3]time.Duration // bash, shelter, mvdan
}

// loadBashCases reads every case file, refusing a malformed one.
func loadBashCases(t testing.TB) []bashCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(bashdiffDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files in %s: %v", bashdiffDir, err)
	}
	var cases []bashCase
	seen := map[string]bool{}
	for _, path := range files {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(path)
		byName := map[string]int{}
		for _, f := range ar.Files {
			if name, ok := strings.CutSuffix(f.Name, ".stdin"); ok {
				i, found := byName[name]
				if !found {
					t.Fatalf("%s: %s comes before (or without) its case %s", base, f.Name, name)
				}
				in := string(f.Data)
				cases[i].Stdin = &in
				continue
			}
			c := bashCase{File: base, Name: f.Name, Script: string(f.Data)}
			first, _, _ := strings.Cut(c.Script, "\n")
			for _, prefix := range []string{gapPrefix, runTimeGapPrefix} {
				why, ok := strings.CutPrefix(first, prefix)
				if !ok {
					continue
				}
				if c.Gap = strings.TrimSpace(why); c.Gap == "" {
					t.Fatalf("%s: %s: a gap line says why", base, c.Name)
				}
				c.RunTime = prefix == runTimeGapPrefix
			}
			if strings.TrimSpace(c.Script) == "" || seen[c.id()] {
				t.Fatalf("%s: case %q is empty or named twice", base, c.Name)
			}
			seen[c.id()] = true
			byName[c.Name] = len(cases)
			cases = append(cases, c)
		}
	}
	return cases
}

// writeFixture fills a case's directory; every run of a case starts from
// the same files.
func writeFixture(dir string) error {
	files := map[string]string{
		"lines.txt":       "one\ntwo\nthree\n",
		"words.txt":       "alpha beta\tgamma\n  delta  \n",
		"nonl.txt":        "no newline at end",
		"empty.txt":       "",
		"a.log":           "log a\n",
		"b.log":           "log b\n",
		"c.md":            "# title\n",
		"space name.txt":  "spaced\n",
		"sub/inner.txt":   "inner\n",
		"sub/deep/z.txt":  "deep\n",
		"csv.txt":         "k1,v1\nk2,v2\nk3,v3\n",
		"nul.bin":         "a\x00b\x00c\x00",
		"tabs.txt":        "x\ty\tz\n",
		"script.sh":       "echo \"in script: $# $1\"\nreturn 3 2>/dev/null || exit 4\n",
		"lib.sh":          "libvar=loaded\nlibfn() { echo \"libfn $*\"; }\n",
		"numbers.txt":     "3\n1\n2\n",
		"trailing.txt":    "text\n\n\n",
		"crlf.txt":        "dos\r\nline\r\n",
		"unicode.txt":     "héllo wörld\n",
		"sub/.hidden":     "h\n",
		".dotfile":        "dot\n",
		"sub/deep/y.log":  "y\n",
		"readme":          "first line\nsecond line\n",
		"multi/one.txt":   "1\n",
		"multi/two.txt":   "2\n",
		"multi/three.dat": "3\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// caseEnv is the whole environment of bash and of bare mvdan/sh; a
// shelter session gets the same variables from its kernel.
func caseEnv(dir string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "TZ=UTC"}
}

func stdinOf(c bashCase) *strings.Reader {
	if c.Stdin == nil {
		return nil
	}
	return strings.NewReader(*c.Stdin)
}

func runBash(bash, dir string, c bashCase) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), bashTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	// Through spawn, as shelter runs programs: its own process group,
	// killed whole with the case, and a child the kernel tests' subreaper
	// knows is not an orphan of theirs.
	cmd := &spawn.Cmd{Path: bash, Args: []string{"bash", "-c", c.Script}, Dir: dir, Env: caseEnv(dir),
		Stdout: &stdout, Stderr: &stderr, Grace: -1}
	if in := stdinOf(c); in != nil {
		cmd.Stdin = in
	}
	status, err := spawn.Run(ctx, cmd)
	o := outcome{Stdout: stdout.String(), Stderr: stderr.String(), Status: status}
	switch {
	case ctx.Err() != nil:
		o.Err = fmt.Errorf("timed out after %s", bashTimeout)
	case err != nil:
		o.Err = err
	}
	return o
}

// runShelter runs a case in a fresh session. A panic is its outcome, so
// that one crash is one failing case, not a dead test binary.
func runShelter(k *kernel.Kernel, dir string, c bashCase) (o outcome) {
	defer func() {
		if v := recover(); v != nil {
			o = outcome{Err: fmt.Errorf("shelter panicked: %v", v)}
		}
	}()
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, Env: map[string]string{"HOME": dir}, DiscardSpills: true})
	if err != nil {
		return outcome{Err: err}
	}
	defer s.Close()
	opts := kernel.RunOptions{Timeout: caseTimeout}
	if in := stdinOf(c); in != nil {
		opts.Stdin = in
	}
	res, err := s.Run(context.Background(), c.Script, opts)
	o = outcome{Stdout: res.Stdout, Status: res.ExitCode, Stderr: res.Stderr, Err: err}
	if res.TimedOut {
		o.Err = fmt.Errorf("timed out after %s", caseTimeout)
	}
	return o
}

// lockedBuffer is a buffer that a runner's background subshells may write
// to concurrently.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runMvdan runs a case on a bare runner: default handlers, the same
// environment, no shelter. A panic of the runner is its outcome.
func runMvdan(dir string, c bashCase) (o outcome) {
	defer func() {
		if v := recover(); v != nil {
			o = outcome{Err: fmt.Errorf("mvdan/sh panicked: %v", v)}
		}
	}()
	file, err := syntax.NewParser().Parse(strings.NewReader(c.Script), "")
	if err != nil {
		return outcome{Status: 2, Stderr: err.Error()}
	}
	var stdin *os.File
	if in := stdinOf(c); in != nil {
		// A pipe, as bash and shelter see it: a reader that is not a
		// file would hand programs a copy goroutine's pipe anyway.
		r, w, err := os.Pipe()
		if err != nil {
			return outcome{Err: err}
		}
		go func() { in.WriteTo(w); w.Close() }()
		stdin = r
	} else if stdin, err = os.Open(os.DevNull); err != nil {
		return outcome{Err: err}
	}
	var stdout, stderr lockedBuffer
	r, err := interp.New(interp.StdIO(stdin, &stdout, &stderr), interp.Env(expand.ListEnviron(caseEnv(dir)...)), interp.Dir(dir))
	if err != nil {
		return outcome{Err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	err = r.Run(ctx, file)
	o = outcome{Stdout: stdout.String(), Stderr: stderr.String()}
	var status interp.ExitStatus
	switch {
	case ctx.Err() != nil:
		o.Err = fmt.Errorf("timed out after %s", caseTimeout)
	case errors.As(err, &status):
		o.Status = int(status)
	case err != nil:
		o.Err = err
	}
	closeAfterBackgrounds(r, stdin)
	return o
}

// closeAfterBackgrounds closes stdin once the commands a bare runner left
// running in the background (its Run does not wait for them) are done, as
// a wait finds them: they start processes with it. Ones that outlast a
// case keep it, until the test process ends.
func closeAfterBackgrounds(r *interp.Runner, stdin *os.File) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if f, err := syntax.NewParser().Parse(strings.NewReader("wait"), ""); err == nil {
			r.Run(ctx, f)
		}
	}()
	select {
	case <-done:
		stdin.Close()
	case <-ctx.Done():
	}
}

// scratchParent is where the cases' directories go: tmpfs when the host
// has one, since the suite creates some ten thousand files and a disk-backed
// /tmp can take milliseconds a file.
func scratchParent() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() && syscall.Access("/dev/shm", 2) == nil {
		return "/dev/shm"
	}
	return os.TempDir()
}

var (
	bashdiffOnce sync.Once
	bashdiffRuns []caseRun
)

// bashdiffResults runs every case once per test binary, three ways, on a
// pool of workers; both comparisons read the same runs.
func bashdiffResults(t *testing.T) []caseRun {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	bashdiffOnce.Do(func() {
		cases := loadBashCases(t)
		cfg, _ := kernel.Preset(kernel.ProfileHost)
		cfg.CoreEnv = []string{"PATH"}
		cfg.Env = map[string]string{"LANG": "C.UTF-8", "TZ": "UTC"}
		k, err := kernel.New(withLaunchers(cfg))
		if err != nil {
			t.Fatal(err)
		}
		root, err := os.MkdirTemp(scratchParent(), "shelter-bashdiff-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		runs := make([]caseRun, len(cases))
		next := make(chan int)
		var wg sync.WaitGroup
		for range caseWorkers {
			wg.Go(func() {
				for i := range next {
					c := cases[i]
					var dirs [3]string
					var err error
					for j := range dirs {
						dirs[j] = filepath.Join(root, fmt.Sprintf("%d-%d", i, j))
						err = errors.Join(err, writeFixture(dirs[j]))
					}
					if err != nil {
						runs[i] = caseRun{bashCase: c, bash: outcome{Err: err}}
						continue
					}
					r := caseRun{bashCase: c}
					start := time.Now()
					r.bash = runBash(bash, dirs[0], c)
					r.took[0] = time.Since(start)
					start = time.Now()
					r.shelter = runShelter(k, dirs[1], c)
					r.took[1] = time.Since(start)
					start = time.Now()
					r.mvdan = runMvdan(dirs[2], c)
					r.took[2] = time.Since(start)
					runs[i] = r
				}
			})
		}
		for i := range cases {
			next <- i
		}
		close(next)
		wg.Wait()
		for _, r := range runs {
			if r.bash.Err != nil {
				t.Errorf("%s: bash itself failed: %v", r.id(), r.bash.Err)
			}
		}
		bashdiffRuns = runs
	})
	if bashdiffRuns == nil {
		t.Fatal("the cases did not run")
	}
	return bashdiffRuns
}

func bashdiffReport() bool { return os.Getenv("SHELTER_BASHDIFF_REPORT") == "1" }

// detail is a failing case in full, for the report.
func (r caseRun) detail() string {
	var b strings.Builder
	fmt.Fprintf(&b, "=== %s\n--- script\n%s", r.id(), r.Script)
	if r.Stdin != nil {
		fmt.Fprintf(&b, "--- stdin %q\n", *r.Stdin)
	}
	fmt.Fprintf(&b, "--- bash:    %s\n--- shelter: %s\n--- mvdan:   %s\n", r.bash, r.shelter, r.mvdan)
	if r.shelter.Stderr != "" {
		fmt.Fprintf(&b, "--- shelter stderr\n%s", r.shelter.Stderr)
	}
	return b.String()
}

// TestBashDiff fails for every unmarked case where shelter differs from
// bash, and for every marked gap that shelter now closes.
func TestBashDiff(t *testing.T) {
	// In parallel: the suite mostly waits on bash, and other tests can
	// run meanwhile.
	t.Parallel()
	runs := bashdiffResults(t)
	if len(runs) < 450 {
		t.Errorf("%d cases; the suite keeps at least 450", len(runs))
	}
	report := bashdiffReport()
	var equal, gaps, mvdanEqual int
	var failing []string
	for _, r := range runs {
		same := r.shelter.sameAs(r.bash)
		if r.mvdan.sameAs(r.bash) {
			mvdanEqual++
		}
		switch {
		case same && r.Gap == "":
			equal++
		case same:
			equal++
			failing = append(failing, r.id())
			t.Errorf("%s: marked as a gap (%s) but shelter now equals bash; remove its gap line", r.id(), r.Gap)
		case r.Gap != "":
			gaps++
			t.Logf("%s: known gap: %s", r.id(), r.Gap)
		case report:
			failing = append(failing, r.id())
			t.Log(r.detail())
		default:
			failing = append(failing, r.id())
			t.Errorf("%s: shelter differs from bash\n%s\n    bash:    %s\n    shelter: %s", r.id(), indent(r.Script), r.bash, r.shelter)
		}
	}
	summary := fmt.Sprintf("%d cases: %d equal to bash, %d known gaps (bare mvdan/sh: %d equal to bash)", len(runs), equal, gaps, mvdanEqual)
	t.Log(summary)
	logSlowest(t, runs)
	if testing.Verbose() {
		fmt.Println("bashdiff:", summary)
	}
	if report && len(failing) > 0 {
		sort.Strings(failing)
		t.Errorf("%d cases differ from bash:\n%s", len(failing), strings.Join(failing, "\n"))
	}
}

// TestBashDiffNeverWorseThanMvdan: wherever bare mvdan/sh equals bash,
// shelter equals bash too — a known gap is mvdan/sh's, never shelter's own.
func TestBashDiffNeverWorseThanMvdan(t *testing.T) {
	t.Parallel()
	for _, r := range bashdiffResults(t) {
		if r.mvdan.sameAs(r.bash) && !r.shelter.sameAs(r.bash) {
			t.Errorf("%s: bare mvdan/sh equals bash, shelter does not\n    bash:    %s\n    shelter: %s", r.id(), r.bash, r.shelter)
		}
	}
}

// logSlowest names the cases that cost the suite most, to keep it fast.
func logSlowest(t *testing.T, runs []caseRun) {
	var total [3]time.Duration
	for _, r := range runs {
		for i, d := range r.took {
			total[i] += d
		}
	}
	t.Logf("time spent: bash %s, shelter %s, mvdan/sh %s", total[0].Round(time.Millisecond), total[1].Round(time.Millisecond), total[2].Round(time.Millisecond))
	slow := slices.Clone(runs)
	cost := func(r caseRun) time.Duration { return r.took[0] + r.took[1] + r.took[2] }
	slices.SortFunc(slow, func(a, b caseRun) int { return cmp.Compare(cost(b), cost(a)) })
	for _, r := range slow[:min(5, len(slow))] {
		t.Logf("slow: %s: bash %s, shelter %s, mvdan/sh %s", r.id(), r.took[0].Round(time.Millisecond), r.took[1].Round(time.Millisecond), r.took[2].Round(time.Millisecond))
	}
}

func indent(s string) string {
	return "    | " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    | ")
}
