package harness_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
)

// sandboxSession is a session of the sandbox preset confined to a fresh
// root, which is also its working directory.
func sandboxSession(t *testing.T, tools []kernel.Tool) *kernel.Session {
	t.Helper()
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Root, cfg.Tools = root, tools
	cfg.Env["GORACE"] = "atexit_sleep_ms=0"
	k, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: root, DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func reportOf(t *testing.T, res kernel.Result) report {
	t.Helper()
	if res.ExitCode != 0 {
		t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	var r report
	if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil {
		t.Fatalf("stdout %q: %v", res.Stdout, err)
	}
	return r
}

// TestExecutableProgramEnv: in the sandbox an executable tool gets the
// session's starting variables, of the agent's own exports only those
// pass_env names, never an injection variable, and its pins.
func TestExecutableProgramEnv(t *testing.T) {
	probe, err := harness.Exec(harness.Def{
		Name:    "probe",
		PassEnv: []string{"AGENT_PASSED"},
		Env:     map[string]string{"PINNED": "yes", "LD_PRELOAD": "", "CI": "pinned"},
	}, []string{helperPath, helperArg, "echo"})
	if err != nil {
		t.Fatal(err)
	}
	s := sandboxSession(t, []kernel.Tool{probe})
	script := "export AGENT_OWN=1 AGENT_PASSED=2 PINNED=agent LD_PRELOAD=/x.so GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=id NODE_OPTIONS=--require=/x; probe"
	env := reportOf(t, run(t, s, script)).Env
	for _, want := range []string{"AGENT_PASSED=2", "PINNED=yes", "LD_PRELOAD=", "CI=pinned", "HOME=" + s.TempDir() + "/home"} {
		if !slices.Contains(env, want) {
			t.Errorf("child env lacks %s:\n%q", want, env)
		}
	}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "AGENT_OWN", name == "NODE_OPTIONS", strings.HasPrefix(name, "GIT_CONFIG"):
			t.Errorf("child env has %s", kv)
		case kv == "PINNED=agent", kv == "LD_PRELOAD=/x.so":
			t.Errorf("the agent's value beat the pin: %s", kv)
		}
	}
}

// TestExecutableBareNameIgnoresSessionPATH: a tool run as a bare name is
// the program shelter's PATH had when the tool was made; a script that
// plants a program of that name and points PATH at it still runs the real
// one.
func TestExecutableBareNameIgnoresSessionPATH(t *testing.T) {
	real := t.TempDir()
	if err := os.Symlink(helperPath, filepath.Join(real, "probe-bin")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", real+string(os.PathListSeparator)+os.Getenv("PATH"))
	probe := execTool(t, "probe", "", "probe-bin", helperArg, "echo")
	evil, ran := fakeBin(t, "probe-bin")
	for name, s := range map[string]*kernel.Session{
		"host":    session(t, []kernel.Tool{probe}, kernel.SessionOptions{Env: map[string]string{"RAN": ran}}),
		"sandbox": sandboxSession(t, []kernel.Tool{probe}),
	} {
		for _, script := range []string{
			"PATH=" + evil + "; export RAN=" + ran + "; probe --unit x",
			"PATH=" + evil + " RAN=" + ran + " probe --unit x",
		} {
			r := reportOf(t, run(t, s, script))
			if r.Stdin != `{"unit":"x"}`+"\n" {
				t.Errorf("%s: %s: stdin %q", name, script, r.Stdin)
			}
		}
	}
	if got := ranLines(t, ran); got != nil {
		t.Errorf("the planted program ran: %q", got)
	}
}

func TestExecPassEnvErrors(t *testing.T) {
	tests := []struct {
		def  harness.Def
		want string
	}{
		{harness.Def{Name: "a", PassEnv: []string{"HOME", "BASH_ENV"}},
			"harness: tool a: pass_env: 'BASH_ENV' makes the program load or run code it names, so the agent's value may not reach it; pin it under env: to set it on purpose"},
		{harness.Def{Name: "a", PassEnv: []string{"X Y"}},
			"harness: tool a: pass_env: 'X Y' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)"},
		{harness.Def{Name: "a", Env: map[string]string{"": "x"}},
			"harness: tool a: env: '' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)"},
	}
	for _, tc := range tests {
		_, err := harness.Exec(tc.def, []string{helperPath})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%+v:\n got %v\nwant %s", tc.def, err, tc.want)
		}
	}
	// A pin may set an injection variable, on purpose.
	if _, err := harness.Exec(harness.Def{Name: "a", Env: map[string]string{"LD_PRELOAD": ""}}, []string{helperPath}); err != nil {
		t.Errorf("pinning LD_PRELOAD: %v", err)
	}
}
