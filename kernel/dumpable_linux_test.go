package kernel_test

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shelter-sh/shelter/kernel"
)

// Building a kernel makes the process non-dumpable, so that children
// without CAP_SYS_PTRACE cannot read shelter's /proc entries.
func TestKernelMakesProcessNonDumpable(t *testing.T) {
	if _, err := kernel.New(kernel.Config{}); err != nil {
		t.Fatal(err)
	}
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v != 0 {
		t.Errorf("PR_GET_DUMPABLE = %d, want 0", v)
	}
}
