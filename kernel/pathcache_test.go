package kernel_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// TestPathFoundOncePerCall: the run reuses what the static pass found on
// PATH, and searches again whenever that could differ: a PATH assignment,
// a cd with a relative PATH entry, hash, a program gone or added, a new
// call.
func TestPathFoundOncePerCall(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	for _, d := range []string{"a", "b", "x/bin", "y/bin"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prog := func(dir, name, says string) string {
		p := filepath.Join(base, dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho "+says+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	prog("b", "tool", "b")
	prog("x/bin", "rel", "x")
	prog("y/bin", "rel", "y")
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	sys := "/usr/bin:/bin"
	s := newSession(t, kernel.Config{}, kernel.SessionOptions{
		Dir: filepath.Join(base, "x"),
		Env: map[string]string{"PATH": a + ":" + b + ":bin:" + sys},
	})
	steps := []struct{ name, script, stdout string }{
		{"found", "tool; tool", "b\nb\n"},
		{"PATH assigned", "tool; PATH=" + b + ":" + sys + "; tool; PATH=" + a + ":" + b + ":bin:" + sys, "b\nb\n"},
		{"relative entry after cd", "rel; cd ../y; rel; cd ../x", "x\ny\n"},
		{"added between calls", "", ""},
		{"", "tool", "a\n"},
		{"gone within the call", "tool; rm " + filepath.Join(a, "tool") + "; tool", "a\nb\n"},
		{"hash", "tool; printf '#!/bin/sh\\necho a2\\n' > " + filepath.Join(a, "tool") + "; chmod +x " + filepath.Join(a, "tool") + "; hash -r; tool", "b\na2\n"},
	}
	for _, st := range steps {
		if st.name == "added between calls" {
			prog("a", "tool", "a")
			continue
		}
		res := run(t, s, st.script)
		if res.Stdout != st.stdout || res.ExitCode != 0 {
			t.Errorf("%s: %q: %d %q %q; want %q", st.name, st.script, res.ExitCode, res.Stdout, res.Stderr, st.stdout)
		}
	}
	// A program the script creates before running it is found.
	if res := run(t, s, "rm -f "+filepath.Join(a, "tool")+"; printf '#!/bin/sh\\necho new\\n' > "+filepath.Join(a, "fresh")+"; chmod +x "+filepath.Join(a, "fresh")+"; fresh"); res.Stdout != "new\n" {
		t.Errorf("a program made by the call: %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	// One made not executable within the call is refused as bash does.
	if res := run(t, s, "chmod -x "+filepath.Join(a, "fresh")+"; fresh"); res.ExitCode != 126 && res.ExitCode != 127 {
		t.Errorf("a program made not executable: %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}
