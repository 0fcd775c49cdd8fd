package wrapped_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// injections are variables a script sets and exports that would make a
// declared program load or run code of the agent's choosing.
var injections = []string{
	"LD_PRELOAD", "LD_LIBRARY_PATH", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0",
	"GIT_CONFIG_PARAMETERS", "BASH_ENV", "ENV", "PYTHONPATH", "PYTHONSTARTUP", "PERL5OPT", "NODE_OPTIONS",
}

// profileSession starts a session of profile p in a fresh root (the
// sandbox's) with the commands registered.
func profileSession(t *testing.T, p kernel.Profile, cmds ...*wrapped.Command) *kernel.Session {
	t.Helper()
	cfg, ok := kernel.Preset(p)
	if !ok {
		t.Fatalf("no preset %s", p)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if p == kernel.ProfileSandbox {
		cfg.Root = root
	}
	m := map[string]*wrapped.Command{}
	for _, c := range cmds {
		m[c.Name()] = c
	}
	return newSession(t, cfg, root, m)
}

func envLines(stdout string) map[string]string {
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if name, v, ok := strings.Cut(line, "="); ok {
			vars[name] = v
		}
	}
	return vars
}

// TestProgramEnv: a wrapped env(1) prints what it got. No injection
// variable the script exports reaches it, in any profile; the agent's own
// exports reach it outside the sandbox, and in the sandbox only when
// pass_env names them; a pin reaches it, an injection variable included.
func TestProgramEnv(t *testing.T) {
	if _, err := os.Stat("/usr/bin/env"); err != nil {
		t.Skip("no /usr/bin/env")
	}
	showenv, err := wrapped.New("showenv", "/usr/bin/env").
		PassEnv("AGENT_PASSED").
		Root(wrapped.NewVerb("")).
		Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := wrapped.New("pinned", "/usr/bin/env").
		Env("LD_PRELOAD", "").
		Env("GIT_CONFIG_COUNT", "0").
		Root(wrapped.NewVerb("")).
		Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var exports strings.Builder
	for _, name := range injections {
		exports.WriteString("export " + name + "=agent-" + name + "; ")
	}
	exports.WriteString("export AGENT_OWN=1 AGENT_PASSED=2; ")
	for _, p := range []kernel.Profile{kernel.ProfileHost, kernel.ProfileAgent, kernel.ProfileSandbox} {
		t.Run(string(p), func(t *testing.T) {
			s := profileSession(t, p, showenv, pinned)
			res := run(t, s, exports.String()+"showenv")
			if res.ExitCode != 0 {
				t.Fatalf("showenv: exit %d stderr %q", res.ExitCode, res.Stderr)
			}
			got := envLines(res.Stdout)
			for _, name := range injections {
				if v, ok := got[name]; ok {
					t.Errorf("%s reached the program: %q", name, v)
				}
			}
			if strings.Contains(res.Stdout, "agent-") {
				t.Errorf("an agent's injection value reached the program:\n%s", res.Stdout)
			}
			if got["AGENT_PASSED"] != "2" {
				t.Errorf("AGENT_PASSED (pass_env) = %q, want 2", got["AGENT_PASSED"])
			}
			_, own := got["AGENT_OWN"]
			if want := p != kernel.ProfileSandbox; own != want {
				t.Errorf("AGENT_OWN reached the program: %v, want %v", own, want)
			}

			res = run(t, s, exports.String()+"pinned")
			got = envLines(res.Stdout)
			if v, ok := got["LD_PRELOAD"]; !ok || v != "" {
				t.Errorf("pinned LD_PRELOAD: %q, %v; want the pin", v, ok)
			}
			if got["GIT_CONFIG_COUNT"] != "0" {
				t.Errorf("pinned GIT_CONFIG_COUNT = %q, want 0", got["GIT_CONFIG_COUNT"])
			}
			if _, ok := got["GIT_CONFIG_KEY_0"]; ok {
				t.Error("GIT_CONFIG_KEY_0 reached a program that pins GIT_CONFIG_COUNT only")
			}
		})
	}
}

// TestLDPreloadNeverLoads builds a shared object whose constructor writes
// a marker, checks that a pin of LD_PRELOAD does load it (so the test can
// fail), then that a script's exported LD_PRELOAD does not, in any profile.
func TestLDPreloadNeverLoads(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	if _, err := os.Stat("/bin/cat"); err != nil {
		t.Skip("no /bin/cat")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "constructor-ran")
	src := filepath.Join(dir, "x.c")
	so := filepath.Join(dir, "x.so")
	code := `#include <stdio.h>
__attribute__((constructor)) static void ran(void) {
	FILE *f = fopen(MARKER, "a");
	if (f) { fputs("ran\n", f); fclose(f); }
}
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command(cc, "-shared", "-fPIC", "-o", so, `-DMARKER="`+marker+`"`, src)
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build a shared object: %v\n%s", err, out)
	}
	catSpec := func(name string) *wrapped.CommandSpec {
		return wrapped.New(name, "/bin/cat").Root(wrapped.NewVerb("").Arg(wrapped.Arg("file")))
	}
	cat, err := catSpec("cat").Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The control may read the object and write its marker where confined.
	control, err := catSpec("preloaded").Env("LD_PRELOAD", so).WritePaths(dir).Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []kernel.Profile{kernel.ProfileHost, kernel.ProfileAgent, kernel.ProfileSandbox} {
		t.Run(string(p), func(t *testing.T) {
			os.Remove(marker)
			s := profileSession(t, p, cat, control)
			if err := os.WriteFile(filepath.Join(s.Dir(), "f"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := run(t, s, "preloaded f")
			if _, err := os.Stat(marker); res.ExitCode != 0 || err != nil {
				t.Fatalf("control: the pinned preload did not run (exit %d stderr %q): %v", res.ExitCode, res.Stderr, err)
			}
			os.Remove(marker)
			res = run(t, s, "export LD_PRELOAD="+so+"; cat f; LD_PRELOAD="+so+" cat f")
			if res.ExitCode != 0 || res.Stdout != "hello\nhello\n" {
				t.Errorf("cat: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the script's LD_PRELOAD ran its constructor")
			}
		})
	}
}

// TestGitConfigCountFsmonitor is the vector of a script that points
// core.fsmonitor at a command through GIT_CONFIG_COUNT and runs the
// shipped git declaration: the command never runs.
func TestGitConfigCountFsmonitor(t *testing.T) {
	needProgram(t, "git")
	repo := gitRepo(t)
	cmds := loadExamples(t, "")
	// Inside the repository, which is the sandbox's root: a confined git
	// writes nowhere else.
	marker := filepath.Join(repo, ".git", "fsmonitor-ran")
	vectors := []string{
		`export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch ` + marker + `'; git status`,
		`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch ` + marker + `' git status`,
		`export GIT_CONFIG_PARAMETERS="'core.fsmonitor=touch ` + marker + `'"; git status`,
	}
	// The control: the same configuration pinned by a declaration runs
	// the command, so the vector is live and the test can fail.
	control, err := wrapped.New("gitpinned", cmds["git"].Executable()).
		Env("GIT_CONFIG_COUNT", "1").Env("GIT_CONFIG_KEY_0", "core.fsmonitor").Env("GIT_CONFIG_VALUE_0", "touch "+marker).
		Verb(wrapped.NewVerb("status")).
		Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []kernel.Profile{kernel.ProfileHost, kernel.ProfileAgent, kernel.ProfileSandbox} {
		t.Run(string(p), func(t *testing.T) {
			cfg, _ := kernel.Preset(p)
			if p == kernel.ProfileSandbox {
				cfg.Root = repo
			}
			s := newSession(t, cfg, repo, map[string]*wrapped.Command{"git": cmds["git"], "gitpinned": control})
			run(t, s, "gitpinned status")
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("control: the pinned fsmonitor did not run: %v", err)
			}
			os.Remove(marker)
			for _, script := range vectors {
				res := run(t, s, script)
				if res.ExitCode != 0 {
					t.Errorf("%s: exit %d stderr %q", script, res.ExitCode, res.Stderr)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("%s: the fsmonitor command ran", script)
				}
			}
		})
	}
}

func TestPassEnvLoadErrors(t *testing.T) {
	tests := []struct {
		name, decl, want string
	}{
		{"an injection variable", "pass_env: [HOME, LD_PRELOAD]",
			"5:22: x: pass_env: 'LD_PRELOAD' makes the program load or run code it names, so the agent's value may not reach it; pin it under env: to set it on purpose"},
		{"git configuration", "pass_env: [GIT_CONFIG_PARAMETERS]",
			"5:16: x: pass_env: 'GIT_CONFIG_PARAMETERS' makes the program load or run code it names, so the agent's value may not reach it; pin it under env: to set it on purpose"},
		{"not a variable name", "pass_env: [A-B]",
			"5:16: x: pass_env: 'A-B' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)"},
		{"a leading digit", "pass_env: [1A]",
			"5:16: x: pass_env: '1A' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)"},
		{"listed twice", "pass_env: [A, A]",
			"5:19: x: pass_env: 'A' listed twice"},
		{"not a list", "pass_env: A",
			"5:15: x: pass_env must be a list of variable names"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tools.yaml")
			src := "commands:\n  x:\n    executable: " + helper + "\n    root: {}\n    " + tc.decl + "\n"
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := wrapped.LoadFile(path, wrapped.LoadOptions{})
			if err == nil || err.Error() != path+":"+tc.want {
				t.Errorf("got  %v\nwant %s:%s", err, path, tc.want)
			}
		})
	}
	// A pin may set an injection variable: on purpose, by the declaration.
	if _, err := wrapped.New("x", helper).Env("LD_PRELOAD", "").Root(wrapped.NewVerb("")).Build(wrapped.LoadOptions{}); err != nil {
		t.Errorf("pinning LD_PRELOAD: %v", err)
	}
	_, err := wrapped.New("x", helper).PassEnv("NODE_OPTIONS").Root(wrapped.NewVerb("")).Build(wrapped.LoadOptions{})
	if want := "x: pass_env: 'NODE_OPTIONS' makes the program load or run code it names, so the agent's value may not reach it; pin it under env: to set it on purpose"; err == nil || err.Error() != want {
		t.Errorf("Go declaration: got %v, want %s", err, want)
	}
}
