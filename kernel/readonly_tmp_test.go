package kernel_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// readOnlyDir is a directory nothing can be made in: a read-only tmpfs
// where the test may mount one (root on Linux), else a directory without
// write permission.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if mountReadOnly(dir) == nil {
		t.Cleanup(func() { unmount(dir) })
		return dir
	}
	if os.Geteuid() == 0 {
		t.Skip("root ignores permissions and no read-only tmpfs could be mounted")
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	return dir
}

// TestReadOnlyTmp: in a container with a read-only root, /tmp cannot
// hold the session's directories. Commands run all the same, in-process
// and external; the session says so once; output past the limit is cut
// with a marker saying no spill file could be written; a job runs.
// (Before, every command exited 126: "temporary directory: mkdir
// /tmp/shelter-…: read-only file system".)
func TestReadOnlyTmp(t *testing.T) {
	ro := readOnlyDir(t)
	work := t.TempDir()
	t.Setenv("TMPDIR", ro)
	for _, p := range []kernel.Profile{kernel.ProfileHost, kernel.ProfileAgent} {
		t.Run(string(p), func(t *testing.T) {
			cfg, _ := kernel.Preset(p)
			cfg.OutputLimit = 1 << 10
			k, err := kernel.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			s, err := k.NewSession(kernel.SessionOptions{Dir: work})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			res, _ := s.Run(context.Background(), `(echo from-job) & wait; sh -c 'echo external'; for i in $(seq 400); do echo line $i; done; echo done`, kernel.RunOptions{})
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, "from-job\nexternal\n") || !strings.HasSuffix(res.Stdout, "line 400\ndone\n") {
				t.Errorf("exit %d\nstdout %q\nstderr %q", res.ExitCode, res.Stdout, res.Stderr)
			}
			if !strings.Contains(res.Stdout, "; no spill file could be written: mkdir "+ro+"/shelter-spill-") || res.SpillPath != "" {
				t.Errorf("marker or spill path: %q, %q", res.Stdout, res.SpillPath)
			}
			note := "shelter: the session's directories in " + ro + " could not be made ("
			if strings.Count(res.Stderr, note) != 1 || strings.Count(res.Stderr, "\n") != 1 {
				t.Errorf("want the note once, alone: %q", res.Stderr)
			}
			res, _ = s.Run(context.Background(), `sh -c 'echo again'`, kernel.RunOptions{})
			if res.ExitCode != 0 || res.Stdout != "again\n" || res.Stderr != "" {
				t.Errorf("next call: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
}
