package builtins

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// run runs script in a host-profile session whose directory is dir, with
// tools registered, and returns its result.
func run(t *testing.T, tools []kernel.Tool, dir, stdin, script string) kernel.Result {
	t.Helper()
	k, err := kernel.New(kernel.Config{Tools: tools, Env: map[string]string{"LC_ALL": "C"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	opts := kernel.RunOptions{}
	if stdin != "" {
		opts.Stdin = strings.NewReader(stdin)
	}
	res, err := s.Run(context.Background(), script, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A gnuCase is one script run twice on the same files and input: by bash
// with the host's GNU tools, and by shelter with the builtins under test.
type gnuCase struct {
	name   string
	script string
	stdin  string
	files  map[string]string // path (relative) → content; "x/" makes a directory
	// stderr compares standard error only by its shape: one line per line
	// of GNU's, each starting with the same "NAME: " prefix. Unset, the
	// text must be equal.
	stderrShape bool
}

// compareGNU runs each case through bash and through shelter and wants
// the same stdout, exit status and stderr. A case whose first word is a
// tool the host lacks (or whose tool is not GNU's) is skipped.
func compareGNU(t *testing.T, tools []kernel.Tool, cases []gnuCase) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Cases share nothing; in parallel, one's fork hides
			// another's.
			t.Parallel()
			tool := strings.Fields(tc.script)[0]
			if !isGNU(tool) {
				t.Skipf("no GNU %s on this machine", tool)
			}
			gnuDir, ourDir := t.TempDir(), t.TempDir()
			writeFiles(t, gnuDir, tc.files)
			writeFiles(t, ourDir, tc.files)
			// The same times in both trees, whichever second each was
			// written in.
			stamp := time.Now().Add(-time.Minute).Truncate(time.Second)
			stampTree(t, gnuDir, stamp)
			stampTree(t, ourDir, stamp)

			cmd := gnuCommand(bash, tc.script)
			cmd.Dir = gnuDir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "HOME=" + gnuDir, "TZ=UTC"}
			cmd.Stdin = strings.NewReader(tc.stdin)
			var gout, gerr strings.Builder
			cmd.Stdout, cmd.Stderr = &gout, &gerr
			gstatus := 0
			if err := cmd.Run(); err != nil {
				ee, ok := err.(*exec.ExitError)
				if !ok {
					t.Fatal(err)
				}
				gstatus = ee.ExitCode()
			}

			res := run(t, tools, ourDir, tc.stdin, "export TZ=UTC HOME=\"$PWD\"; "+tc.script)
			if res.Stdout != gout.String() {
				t.Errorf("%s\nstdout:\n%q\nGNU:\n%q", tc.script, res.Stdout, gout.String())
			}
			if res.ExitCode != gstatus {
				t.Errorf("%s\nstatus %d, GNU %d (stderr %q, GNU %q)", tc.script, res.ExitCode, gstatus, res.Stderr, gerr.String())
			}
			if !sameStderr(res.Stderr, gerr.String(), tc.stderrShape) {
				t.Errorf("%s\nstderr:\n%q\nGNU:\n%q", tc.script, res.Stderr, gerr.String())
			}
		})
	}
}

// gnuCommand runs script with bash, or, when it is one simple command
// with nothing for a shell to expand or redirect, runs its words directly,
// as bash -c would after starting itself.
func gnuCommand(bash, script string) *exec.Cmd {
	if strings.ContainsAny(script, "|&;<>()$`\\\"'*?[]#~={}%!\n\t") {
		return exec.Command(bash, "-c", script)
	}
	args := strings.Fields(script)
	path, err := exec.LookPath(args[0])
	if err != nil {
		return exec.Command(bash, "-c", script)
	}
	cmd := exec.Command(path, args[1:]...)
	cmd.Args[0] = args[0] // the name as called, which GNU's messages show
	return cmd
}

// withFiles gives files to each case that names none of its own.
func withFiles(cases []gnuCase, files map[string]string) []gnuCase {
	for i := range cases {
		if cases[i].files == nil {
			cases[i].files = files
		}
	}
	return cases
}

func sameStderr(ours, gnu string, shape bool) bool {
	if !shape {
		return ours == gnu
	}
	a, b := strings.Split(ours, "\n"), strings.Split(gnu, "\n")
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		pa, _, _ := strings.Cut(a[i], ": ")
		pb, _, _ := strings.Cut(b[i], ": ")
		if pa != pb {
			return false
		}
	}
	return true
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// stampTree sets every file and directory under dir, dir included, to one
// access and modification time.
func stampTree(t *testing.T, dir string, stamp time.Time) {
	t.Helper()
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink == 0 {
			paths = append(paths, p)
		}
		return nil
	})
	// Deepest first: setting a file's times leaves its directory's alone,
	// but do the directories last all the same.
	for i := len(paths) - 1; i >= 0; i-- {
		if err := os.Chtimes(paths[i], stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
}

var gnuTools sync.Map // name → bool

// isGNU reports whether the host's program of that name is GNU's (or, for
// jq, jq itself).
func isGNU(name string) bool {
	if v, ok := gnuTools.Load(name); ok {
		return v.(bool)
	}
	out, err := exec.Command(name, "--version").CombinedOutput()
	ok := err == nil && (strings.Contains(string(out), "GNU") || strings.HasPrefix(string(out), "jq-"))
	gnuTools.Store(name, ok)
	return ok
}
