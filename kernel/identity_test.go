package kernel_test

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// OSTYPE, HOSTTYPE and MACHTYPE are set, unexported, in every profile;
// HOSTNAME is the host's but in the sandbox; a starting variable of the
// name wins, as in bash (docs/embedding.md, "The environment").
func TestShellIdentityVariables(t *testing.T) {
	host, _ := os.Hostname()
	const probe = `echo "[$HOSTNAME]"; case $OSTYPE/$HOSTTYPE/$MACHTYPE in ?*/?*/?*-?*) echo set;; esac; declare -p OSTYPE`
	for _, p := range []kernel.Profile{kernel.ProfileHost, kernel.ProfileAgent, kernel.ProfileSandbox} {
		cfg, _ := kernel.Preset(p)
		dir := t.TempDir()
		if p == kernel.ProfileSandbox {
			cfg.Root = dir
		}
		s := newSession(t, cfg, kernel.SessionOptions{Dir: dir})
		res := run(t, s, probe)
		name := host
		if p == kernel.ProfileSandbox {
			name = ""
		}
		ostype := runtime.GOOS
		if ostype == "linux" {
			ostype = "linux-gnu"
		}
		if want := "[" + name + "]\nset\ndeclare -- OSTYPE=\"" + ostype + "\"\n"; res.Stdout != want {
			t.Errorf("%s: %q, want %q (stderr %q)", p, res.Stdout, want, res.Stderr)
		}
	}
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{Env: map[string]string{"HOSTNAME": "given", "OSTYPE": "mine"}})
	if res := run(t, s, `echo $HOSTNAME $OSTYPE; declare -p OSTYPE`); res.Stdout != "given mine\ndeclare -x OSTYPE=\"mine\"\n" {
		t.Errorf("given by the embedder: %q", res.Stdout)
	}
}

// The session answers the identity as it is read, so that no run copies
// it: a subshell run in the background, whose variables are a copy,
// still has it where the script names it, and so do the later calls of
// a session whose script named it (a function it defined, piped); every
// listing of variables has it.
func TestShellIdentityAnswered(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	shell := run(t, s, `echo "$OSTYPE"; echo "[$HOSTTYPE]"`).Stdout
	if res := run(t, s, `echo "$OSTYPE" | cat; (echo "[$HOSTTYPE]") & wait`); res.Stdout != shell || strings.HasPrefix(shell, "\n") || strings.Contains(shell, "[]") {
		t.Errorf("in the background: %q, in the shell %q (stderr %q)", res.Stdout, shell, res.Stderr)
	}
	run(t, s, `f() { echo "$OSTYPE"; }`)
	if res := run(t, s, `f | cat`); res.Stdout != strings.SplitAfter(shell, "\n")[0] {
		t.Errorf("a function of an earlier call, piped: %q", res.Stdout)
	}
	if vars := s.Vars(); vars["OSTYPE"] == "" || vars["MACHTYPE"] == "" {
		t.Errorf("Session.Vars has no OSTYPE or MACHTYPE: %v", vars)
	}
	for _, list := range []string{`declare -p`, `set`} {
		if res := run(t, s, list+` | grep -c '^\(declare -- \)\?\(OSTYPE\|HOSTTYPE\|MACHTYPE\)='`); res.Stdout != "3\n" {
			t.Errorf("%s lists %q of OSTYPE, HOSTTYPE and MACHTYPE", list, res.Stdout)
		}
	}
}
