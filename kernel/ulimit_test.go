package kernel_test

import (
	"runtime"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// Each child a script starts has its ulimit values from its first
// instruction: not one in 50 sees shelter's, in a plain command, a
// pipeline stage, a subshell, a background job and under a launcher.
func TestUlimitReachesChildBeforeItRuns(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ulimit sets limits on Linux only")
	}
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	for _, tc := range []struct{ script, want string }{
		{`ulimit -n 64; for i in $(seq 50); do sh -c 'ulimit -n'; done | sort -u`, "64\n"},
		{`ulimit -Sv 1048576; for i in $(seq 20); do sh -c 'ulimit -Sv' | cat; done | sort -u`, "1048576\n"},
		{`(ulimit -n 48; for i in $(seq 20); do sh -c 'ulimit -n'; done) | sort -u`, "48\n"},
		{`ulimit -n 64; for i in $(seq 20); do sh -c 'ulimit -n' & wait; done | sort -u`, "64\n"},
		{`ulimit -n 64; for i in $(seq 20); do env sh -c 'ulimit -n'; timeout 5 sh -c 'ulimit -n'; done | sort -u`, "64\n"},
		{`umask 027; ulimit -n 64; for i in $(seq 20); do sh -c 'umask; ulimit -n'; done | sort -u`, "0027\n64\n"},
	} {
		res := run(t, s, tc.script)
		if res.ExitCode != 0 || res.Stdout != tc.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", tc.script, res.ExitCode, res.Stdout, res.Stderr, tc.want)
		}
	}
}
