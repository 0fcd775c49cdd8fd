package proctest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// NobodyEnv is set in the environment of a test binary that [AsNobody]
// runs as the user nobody.
const NobodyEnv = "SHELTER_TEST_AS_NOBODY"

// Nobody is the uid and gid of the unprivileged user tests drop to.
const Nobody = 65534

// AsNobody runs the tests of the running test binary that match pattern
// again, as the user nobody (uid and gid 65534), with NobodyEnv set, and
// fails t with their output when they fail. The binary is copied where
// nobody may execute it first. It skips t unless the process is root,
// and when it is itself running as nobody.
func AsNobody(t *testing.T, pattern string) {
	t.Helper()
	if os.Getenv(NobodyEnv) != "" {
		t.Skip("already running as nobody")
	}
	if os.Geteuid() != 0 {
		t.Skip("dropping to nobody needs root")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "shelter-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(exe))
	if err := copyFile(exe, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", pattern, "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{NobodyEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + os.TempDir(), "SHELTER_SOAK=" + os.Getenv("SHELTER_SOAK")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody:\n%s", out)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
