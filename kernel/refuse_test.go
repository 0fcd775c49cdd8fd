package kernel_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// A construct shelter does not run is refused where it runs, with its one
// line and status 2, and the rest of the script goes on as bash's would;
// the static pass warns of it and refuses nothing.
func TestRefusedWhereItRuns(t *testing.T) {
	coproc := "coproc: 'coproc cat' is not supported; allowed: a background job writing to a file (cmd > file &)\n"
	procSubst := "process substitution is not available in the sandbox profile; allowed: a pipe (cmd | ...) or a file under $TMPDIR\n"
	for _, tc := range []struct {
		name, script    string
		sandbox         bool
		stdout, stderr  string
		status, warning int // warning: the line of the static pass's warning
	}{
		{"coproc never called", "f() { coproc cat; }\necho hi", false, "hi\n", "", 0, 1},
		{"coproc in a branch not taken", "if false; then\ncoproc cat\nfi; echo fine", false, "fine\n", "", 0, 2},
		{"coproc that runs", "echo > marker\ncoproc cat\necho after $?", false, "after 2\n", coproc, 0, 2},
		{"coproc under set -e", "set -e; coproc cat; echo no", false, "", coproc, 2, 1},
		{"process substitution never called", "f() { read -r l < <(echo x); }\necho hi", true, "hi\n", "", 0, 1},
		{"process substitution that runs", "echo > marker\nread -r l < <(echo x)\necho after $?", true, "after 2\n", procSubst, 0, 2},
		{"process substitution in a substitution", `x=$(echo > marker; read -r l < <(echo x)); echo "[$x] $?"`, true, "[] 2\n", procSubst, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *kernel.Session
			if tc.sandbox {
				s = sandboxSession(t, t.TempDir())
			} else {
				s = newSession(t, kernel.Config{}, kernel.SessionOptions{})
			}
			res := run(t, s, tc.script)
			if res.Rejected || res.Stdout != tc.stdout || res.Stderr != tc.stderr || res.ExitCode != tc.status {
				t.Errorf("got rejected %v, status %d, stdout %q, stderr %q; want status %d, stdout %q, stderr %q",
					res.Rejected, res.ExitCode, res.Stdout, res.Stderr, tc.status, tc.stdout, tc.stderr)
			}
			var unsupported []kernel.Issue
			for _, is := range res.Issues {
				if is.Code == kernel.CodeUnsupported {
					unsupported = append(unsupported, is)
				}
			}
			if len(unsupported) != 1 || unsupported[0].Severity != kernel.SeverityWarning || unsupported[0].Line != tc.warning {
				t.Errorf("issues %+v, want one warning of code unsupported at line %d", res.Issues, tc.warning)
			}
			if _, err := os.Stat(filepath.Join(s.Dir(), "marker")); err != nil && tc.stderr != "" && tc.status == 0 {
				t.Errorf("what came before the refusal did not run: %v", err)
			}
		})
	}
}

// A process substitution writes into the call's output, which the call
// waits for, and sets $!, whose status wait gives; one that nothing opens
// neither hangs wait nor the call's end.
func TestProcSubstOutputAndStatus(t *testing.T) {
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{})
	for _, tc := range []struct{ script, stdout string }{
		{"seq 3 > >(tac)", "3\n2\n1\n"},
		{`cat <(exit 123) >/dev/null; wait "$!"; echo $?`, "123\n"},
		{`f() { cat <(exit 7) >/dev/null; wait $!; echo $?; }; f`, "7\n"},
		{`x=<(exit 4); wait $!; echo $?`, "4\n"},
		{`echo <(true) >/dev/null; wait; echo all`, "all\n"},
		{`sleep 0.1 & cat <(exit 1) <(exit 2) >/dev/null; wait $!; echo $?`, "2\n"},
	} {
		res := run(t, s, tc.script)
		if res.ExitCode != 0 || res.Stdout != tc.stdout {
			t.Errorf("%s: status %d stdout %q stderr %q; want stdout %q", tc.script, res.ExitCode, res.Stdout, res.Stderr, tc.stdout)
		}
	}
}
