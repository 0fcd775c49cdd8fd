package kernel

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExternalRefusalLine(t *testing.T) {
	bin := t.TempDir()
	cat := filepath.Join(bin, "cat")
	if err := os.WriteFile(cat, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		allowed []string
		path    string
		want    string
	}{
		{"cat", nil, bin, "shelter: external command 'cat' is not allowed in this session; allowed: (none); to allow it, add 'cat' to Config.AllowExternal (shelter --allow-external cat)"},
		{"/usr/bin/curl", []string{"sh", "cat"}, bin, "shelter: external command 'curl' is not allowed in this session; allowed: cat, sh; to allow it, add 'curl' to Config.AllowExternal (shelter --allow-external curl)"},
		{"/tmp/evil/cat", []string{"cat"}, bin, "shelter: external command '/tmp/evil/cat' is not allowed in this session; the allowed 'cat' is the one PATH finds, " + cat},
		{"/tmp/evil/cat", []string{"cat"}, "", "shelter: external command '/tmp/evil/cat' is not allowed in this session; the allowed 'cat' is the one PATH finds, and PATH finds none"},
	} {
		if got := externalRefusalLine(tc.name, tc.allowed, tc.path, bin); got != tc.want {
			t.Errorf("externalRefusalLine(%q, %q)\n got %s\nwant %s", tc.name, tc.allowed, got, tc.want)
		}
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
