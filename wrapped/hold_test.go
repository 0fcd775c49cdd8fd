package wrapped_test

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// holdTree is a session root with scripts/x.py and scripts/alias.py, a
// link to it: the canonical path of either is root/scripts/x.py.
func holdTree(t *testing.T) (root string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	scripts := filepath.Join(root, "scripts")
	if err := os.Mkdir(scripts, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scripts, "x.py"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("x.py", filepath.Join(scripts, "alias.py")); err != nil {
		t.Fatal(err)
	}
	return root
}

// readCommand is a wrapped oracle that prints each argument it gets and
// the file it names, read; hold is the declaration's choice, nil for none.
func readCommand(t *testing.T, under string, hold *bool) *wrapped.Command {
	t.Helper()
	arg := wrapped.Arg("script").Required().Under(under)
	if hold != nil {
		arg.Hold(*hold)
	}
	c, err := wrapped.New("py", helper).
		Env(helperEnv, "read").
		Root(wrapped.NewVerb("").Arg(arg)).
		Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// holdSession starts a session of profile p in root (the sandbox's root
// too) with c registered.
func holdSession(t *testing.T, p kernel.Profile, root string, c *wrapped.Command) *kernel.Session {
	t.Helper()
	cfg, ok := kernel.Preset(p)
	if !ok {
		t.Fatalf("no preset %s", p)
	}
	if p == kernel.ProfileSandbox {
		cfg.Root = root
	}
	return newSession(t, cfg, root, map[string]*wrapped.Command{c.Name(): c})
}

// TestHoldByProfile: a path_under argument reaches the program as its
// canonical path in the host and agent profiles, and held, as
// /proc/self/fd/3 on Linux, in the sandbox profile; hold: true holds it
// in every profile, hold: false hands the path in every profile. Either
// way the program reads the file that was checked, and the plan shows the
// canonical path.
func TestHoldByProfile(t *testing.T) {
	root := holdTree(t)
	canonical := filepath.Join(root, "scripts", "x.py")
	yes, no := true, false
	for _, p := range kernel.Profiles() {
		for _, tc := range []struct {
			name string
			hold *bool
			held bool
		}{
			{"unset", nil, p == kernel.ProfileSandbox},
			{"hold true", &yes, true},
			{"hold false", &no, false},
		} {
			t.Run(string(p)+"/"+tc.name, func(t *testing.T) {
				c := readCommand(t, filepath.Join(root, "scripts"), tc.hold)
				plan, err := c.Plan([]string{"scripts/alias.py"}, root)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(plan.Argv, []string{helper, canonical}) {
					t.Errorf("plan argv %q, want [%s %s]", plan.Argv, helper, canonical)
				}
				s := holdSession(t, p, root, c)
				res := run(t, s, "py scripts/alias.py")
				if res.ExitCode != 0 {
					t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
				}
				want := canonical
				if tc.held && runtime.GOOS == "linux" {
					want = "/proc/self/fd/3"
				}
				got := argvOf(t, res.Stdout)
				if !slices.Equal(got, []string{want, "print(1)\n"}) {
					t.Errorf("the program got %q, want [%s print(1)\\n]", got, want)
				}
				if !tc.held && !slices.Equal(got[:1], plan.Argv[1:]) {
					t.Errorf("the program got %q, the plan says %q", got[:1], plan.Argv[1:])
				}
			})
		}
	}
}

// The declared choice is what Positional.Hold reports; Build refuses it on
// an argument that is not a path.
func TestHoldBuilder(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		arg            *wrapped.ArgSpec
		hold, declared bool
	}{
		{wrapped.Arg("a").Under(dir), false, false},
		{wrapped.Arg("a").Under(dir).Hold(true), true, true},
		{wrapped.Arg("a").Under(dir).Hold(false), false, true},
		{wrapped.Many("a").Under(dir).Hold(false).Hold(true), true, true},
	} {
		c, err := wrapped.New("py", helper).Root(wrapped.NewVerb("").Arg(tc.arg)).Build(wrapped.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v, _ := c.Verb("")
		if hold, declared := v.Positionals()[0].Hold(); hold != tc.hold || declared != tc.declared {
			t.Errorf("Hold() = %v, %v; want %v, %v", hold, declared, tc.hold, tc.declared)
		}
	}
	_, err := wrapped.New("py", helper).Root(wrapped.NewVerb("").Arg(wrapped.Arg("a").Hold(true))).Build(wrapped.LoadOptions{})
	if want := "py: argument 'a': hold without path_under; only a path_under argument is held"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// hold: in YAML is the builder's Hold; null leaves the choice to the
// profile.
func TestHoldYAML(t *testing.T) {
	dir := t.TempDir()
	cmds := loadString(t, `
commands:
  py:
    executable: `+helper+`
    root:
      positionals:
        - {name: unset, path_under: `+dir+`}
        - {name: none, path_under: `+dir+`, hold: ~}
        - {name: held, path_under: `+dir+`, hold: true}
        - {name: path, path_under: `+dir+`, hold: false}
`)
	v, _ := cmds["py"].Verb("")
	want := map[string][2]bool{"unset": {false, false}, "none": {false, false}, "held": {true, true}, "path": {false, true}}
	for _, a := range v.Positionals() {
		hold, declared := a.Hold()
		if w := want[a.Name()]; hold != w[0] || declared != w[1] {
			t.Errorf("%s: Hold() = %v, %v; want %v, %v", a.Name(), hold, declared, w[0], w[1])
		}
	}
}

// The issue in one program: a Python traceback names the script's
// canonical path in the agent profile, and the descriptor in the sandbox
// profile (on Linux), where the path is held.
func TestHoldPythonTraceback(t *testing.T) {
	needProgram(t, "python3")
	root := holdTree(t)
	boom := filepath.Join(root, "scripts", "boom.py")
	if err := os.WriteFile(boom, []byte("raise SystemExit(open(__file__).read().splitlines()[0])\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "scripts", "trace.py"), []byte("1/0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	py, err := wrapped.New("py", "python3").
		Root(wrapped.NewVerb("").Arg(wrapped.Arg("script").Required().Under(filepath.Join(root, "scripts")))).
		Build(wrapped.LoadOptions{Path: os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []kernel.Profile{kernel.ProfileAgent, kernel.ProfileSandbox} {
		t.Run(string(p), func(t *testing.T) {
			s := holdSession(t, p, root, py)
			named := filepath.Join(root, "scripts", "trace.py")
			if p == kernel.ProfileSandbox && runtime.GOOS == "linux" {
				named = "/proc/self/fd/3"
			}
			res := run(t, s, "py scripts/trace.py")
			if want := "File \"" + named + "\", line 1"; res.ExitCode != 1 || !strings.Contains(res.Stderr, want) {
				t.Errorf("exit %d stderr %q, want a traceback naming %s", res.ExitCode, res.Stderr, want)
			}
			// Held or not, the script reads itself.
			res = run(t, s, "py scripts/boom.py")
			if want := "raise SystemExit(open(__file__).read().splitlines()[0])\n"; res.ExitCode != 1 || res.Stderr != want {
				t.Errorf("exit %d stderr %q, want %q", res.ExitCode, res.Stderr, want)
			}
		})
	}
}
