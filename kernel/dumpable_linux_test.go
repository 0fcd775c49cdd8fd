package kernel_test

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shelter-sh/shelter/kernel"
)

// Config.NonDumpable makes the process non-dumpable, so that children
// without CAP_SYS_PTRACE cannot read shelter's /proc entries; without it
// New leaves the process as it found it. Not parallel: it flips a
// process-wide setting other tests rely on, and leaves it set.
func TestNonDumpableIsTheEmbeddersChoice(t *testing.T) {
	dumpable := func() int {
		t.Helper()
		v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := kernel.New(kernel.Config{}); err != nil {
		t.Fatal(err)
	}
	if v := dumpable(); v != 1 {
		t.Errorf("after New(Config{}): PR_GET_DUMPABLE = %d, want 1 (untouched)", v)
	}
	for _, p := range kernel.Profiles() {
		cfg, _ := kernel.Preset(p)
		if !cfg.NonDumpable {
			t.Errorf("Preset(%s).NonDumpable = false, want true", p)
		}
	}
	if _, err := kernel.New(kernel.Config{NonDumpable: true}); err != nil {
		t.Fatal(err)
	}
	if v := dumpable(); v != 0 {
		t.Errorf("after New(Config{NonDumpable: true}): PR_GET_DUMPABLE = %d, want 0", v)
	}
}
