package kernel

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExternalRefusalLine(t *testing.T) {
	for _, tc := range []struct {
		name, pool string
		want       string
	}{
		{"cat", "the builtins (help lists them)", "shelter: external command 'cat' is not allowed in this session; allowed: the builtins (help lists them)"},
		{"/usr/bin/curl", "git, sh and the shell's builtins", "shelter: external command 'curl' is not allowed in this session; allowed: git, sh and the shell's builtins"},
	} {
		if got := externalRefusalLine(tc.name, tc.pool); got != tc.want {
			t.Errorf("externalRefusalLine(%q, %q)\n got %s\nwant %s", tc.name, tc.pool, got, tc.want)
		}
	}
	const hint = "shelter: external command 'curl' is not allowed in this session; to allow it, add 'curl' to Config.AllowExternal (shelter --allow-external curl)"
	if got := externalHintLine("/usr/bin/curl"); got != hint {
		t.Errorf("externalHintLine\n got %s\nwant %s", got, hint)
	}
}

// An allowed external is what shelter's own PATH found when the kernel
// was built: a session's PATH, a planted file of the same name or a path
// typed out do not change which program runs.
func TestAllowedExternalResolvedOnce(t *testing.T) {
	bin := t.TempDir()
	tool := filepath.Join(bin, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho real\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, _ := Preset(ProfileSandbox)
	cfg.Root = t.TempDir()
	cfg.AllowExternal = []string{"tool", "absent-program"}
	cfg.LookupEnv = func(name string) (string, bool) {
		if name == "PATH" {
			return bin + ":/usr/bin:/bin", true
		}
		return "", false
	}
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := os.Mkdir(filepath.Join(cfg.Root, "evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg.Root, "evil", "tool"), []byte("#!/bin/sh\necho evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), `PATH=$PWD/evil:$PATH; tool; `+tool+`; ./evil/tool; absent-program`, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "shelter: external command './evil/tool' is not allowed in this session; the allowed 'tool' is " + tool + "\n" +
		"shelter: external command 'absent-program' is allowed, but shelter's PATH had no 'absent-program' when the kernel was built\n"
	if res.Stdout != "real\nreal\n" || !strings.HasSuffix(res.Stderr, want) {
		t.Errorf("stdout %q, stderr %q; want real twice and %q", res.Stdout, res.Stderr, want)
	}
}

func TestGoneDirLine(t *testing.T) {
	dir := t.TempDir()
	if line, ok := goneDirLine("ls", dir); ok {
		t.Errorf("an existing directory: %q", line)
	}
	gone := filepath.Join(dir, "gone")
	want := "shelter: ls: the working directory " + gone + " no longer exists; cd to one that does"
	if line, ok := goneDirLine("ls", gone); !ok || line != want {
		t.Errorf("got %q %v, want %q", line, ok, want)
	}
}
