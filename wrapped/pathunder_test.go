package wrapped_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// pathTree builds base/{app,app-evil,outside} with links inside app: one
// pointing outside, one to a file outside, one inside; and base/rootlink,
// a link to app.
func pathTree(t *testing.T) (base string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"app/real", "app-evil", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"app/x.py", "app/real/x.py", "app-evil/x.py", "outside/secret"} {
		if err := os.WriteFile(filepath.Join(base, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"app/link-out": filepath.Join(base, "outside"),
		"app/evil.py":  filepath.Join(base, "outside/secret"),
		"app/alias":    "real",
		"rootlink":     filepath.Join(base, "app"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

func underCommand(t *testing.T, root string) *wrapped.Command {
	t.Helper()
	c, err := wrapped.New("py", helper).
		Env(helperEnv, "argv").
		Root(wrapped.NewVerb("").Arg(wrapped.Arg("script").Under(root))).
		Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPathUnder(t *testing.T) {
	base := pathTree(t)
	app := filepath.Join(base, "app")
	cases := []struct {
		name, root, dir, arg string
		want                 string // the resolved path; "" means refused
	}{
		{"a file inside", app, app, "x.py", app + "/x.py"},
		{"the directory itself", app, app, ".", app},
		{"a file that does not exist yet", app, app, "new/file.py", app + "/new/file.py"},
		{"absolute inside", app, base, app + "/x.py", app + "/x.py"},
		{"relative to the session's directory", app, app + "/real", "x.py", app + "/real/x.py"},
		{"relative from outside into the root", app, base, "app/x.py", app + "/x.py"},
		{"a link inside to inside", app, app, "alias/x.py", app + "/real/x.py"},
		{"missing component popped by ..", app, app, "missing/../alias/x.py", app + "/real/x.py"},
		{".. escapes", app, app, "../outside/secret", ""},
		{".. escapes through a missing component", app, app, "sub/../../outside/secret", ""},
		{"absolute outside", app, app, "/etc/passwd", ""},
		{"a sibling whose name starts with the root's", app, app, base + "/app-evil/x.py", ""},
		{"a sibling, relative", app, app, "../app-evil/x.py", ""},
		{"a link inside pointing outside", app, app, "link-out/secret", ""},
		{"a file link pointing outside", app, app, "evil.py", ""},
		{"a link's .. is its target's parent", app, app, "link-out/..", ""},
		{"relative from outside the root", app, base, "outside/secret", ""},
		{"root that is a link: through the link", base + "/rootlink", base, base + "/rootlink/x.py", app + "/x.py"},
		{"root that is a link: the real path", base + "/rootlink", base, app + "/real/x.py", app + "/real/x.py"},
		{"root that is a link: relative", base + "/rootlink", base + "/rootlink", "x.py", app + "/x.py"},
		{"root that is a link: outside", base + "/rootlink", base, base + "/outside/secret", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := underCommand(t, tc.root)
			plan, err := c.Plan([]string{tc.arg}, tc.dir)
			if tc.want == "" {
				line := "py: script '" + tc.arg + "' is outside its directory; allowed: paths under " + tc.root
				if err == nil || err.Error() != line {
					t.Fatalf("got %v, %v; want %s", plan, err, line)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := plan.Argv[1]; got != tc.want {
				t.Errorf("argv word %q, want %q", got, tc.want)
			}
		})
	}
}

// path_under: $PWD is the session's working directory at each call: the
// same word is inside from one directory and refused from another; the
// static pass leaves it to execution, and the schema names no host path.
func TestPathUnderWorkingDir(t *testing.T) {
	base := pathTree(t)
	app := filepath.Join(base, "app")
	c := underCommand(t, wrapped.WorkingDir)
	cases := []struct {
		name, dir, arg string
		want           string // the resolved path; "" means refused
	}{
		{"a file inside", app, "x.py", app + "/x.py"},
		{"absolute inside", app, app + "/real/x.py", app + "/real/x.py"},
		{"a subdirectory's", app, "real/x.py", app + "/real/x.py"},
		{"from a subdirectory, its parent's", app + "/real", "../x.py", ""},
		{".. escapes", app, "../outside/secret", ""},
		{"a link inside pointing outside", app, "evil.py", ""},
		{"absolute outside", app, "/etc/passwd", ""},
		{"no working directory", "", "x.py", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := c.Plan([]string{tc.arg}, tc.dir)
			if tc.want == "" {
				line := "py: script '" + tc.arg + "' is outside its directory; allowed: paths under " + tc.dir
				if err == nil || err.Error() != line {
					t.Fatalf("got %v, %v; want %s", plan, err, line)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := plan.Argv[1]; got != tc.want {
				t.Errorf("argv word %q, want %q", got, tc.want)
			}
		})
	}
	if err := c.CheckStatic([]kernel.Word{{Text: "py"}, {Text: "/etc/passwd"}}); err != nil {
		t.Errorf("static pass: %v; want it left to execution", err)
	}
	if schema := string(c.InputSchema()); !strings.Contains(schema, "A path under the working directory.") || strings.Contains(schema, "$PWD") {
		t.Errorf("schema: %s", schema)
	}
}

// The child opens what shelter checked: the resolved path, or, held (on
// Linux), a descriptor of it opened beneath the root (/proc/self/fd/N).
func TestPathUnderChildGetsResolvedPath(t *testing.T) {
	base := pathTree(t)
	app := filepath.Join(base, "app")
	for _, hold := range []bool{false, true} {
		t.Run(fmt.Sprintf("hold %v", hold), func(t *testing.T) {
			py, err := wrapped.New("py", helper).
				Env(helperEnv, "argv").
				Root(wrapped.NewVerb("").Arg(wrapped.Arg("script").Under(base + "/rootlink").Hold(hold))).
				Build(wrapped.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			paths, err := wrapped.New("paths", helper).
				Env(helperEnv, "paths").
				Root(wrapped.NewVerb("").Arg(wrapped.Many("file").Under(base + "/rootlink").Hold(hold))).
				Build(wrapped.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := newSession(t, kernel.Config{}, app, map[string]*wrapped.Command{"py": py, "paths": paths})
			res := run(t, s, "cd real && py ../alias/x.py")
			if res.ExitCode != 0 {
				t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
			}
			want := app + "/real/x.py"
			if hold && runtime.GOOS == "linux" {
				want = "/proc/self/fd/3"
			}
			if got := argvOf(t, res.Stdout); len(got) != 1 || got[0] != want {
				t.Errorf("argv %q, want [%s]", got, want)
			}
			// Each word names what was checked: a file, a file through a
			// link inside, the root itself, a file that does not exist yet
			// (held: its directory), one under a directory that does not
			// exist yet.
			res = run(t, s, "cd "+app+" && paths x.py alias/x.py . new.py real/new/deeper.py")
			if res.ExitCode != 0 {
				t.Fatalf("paths: exit %d stderr %q", res.ExitCode, res.Stderr)
			}
			wantReal := []string{app + "/x.py", app + "/real/x.py", app, app + "/new.py", "error"}
			got := argvOf(t, res.Stdout)
			if len(got) != len(wantReal) {
				t.Fatalf("paths %q, want %q", got, wantReal)
			}
			for i := range got {
				if got[i] != wantReal[i] && !(wantReal[i] == "error" && strings.HasPrefix(got[i], "error: ")) {
					t.Errorf("path %d: %q, want %q", i, got[i], wantReal[i])
				}
			}
			res = run(t, s, "py ../../outside/secret")
			if res.ExitCode != 2 || res.Stdout != "" || res.Stderr != "py: script '../../outside/secret' is outside its directory; allowed: paths under "+base+"/rootlink\n" {
				t.Errorf("outside: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
}
