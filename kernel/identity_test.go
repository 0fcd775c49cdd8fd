package kernel_test

import (
	"os"
	"runtime"
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
