package spawn_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/shelter-sh/shelter/spawn"
)

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	other := filepath.Join(dir, "other")
	for _, d := range []string{bin, other, filepath.Join(bin, "adir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "tool"), 0o755)
	write(filepath.Join(bin, "plain"), 0o644)
	write(filepath.Join(other, "plain"), 0o755)
	write(filepath.Join(dir, "local"), 0o755)
	write(filepath.Join(dir, "locked"), 0o644)

	tests := []struct {
		name, path, lookup string
		want               string
		status             int
		reason             string
	}{
		{"on PATH", bin, "tool", filepath.Join(bin, "tool"), 0, ""},
		{"not on PATH", other, "tool", "", 127, "command not found"},
		{"empty PATH", "", "tool", "", 127, "command not found"},
		{"empty name", bin, "", "", 127, "command not found"},
		{"first executable wins", bin + ":" + other, "plain", filepath.Join(other, "plain"), 0, ""},
		{"only non-executable", bin, "plain", "", 126, "Permission denied"},
		{"directory on PATH is skipped", bin, "adir", "", 127, "command not found"},
		{"empty element is dir", ":" + bin, "local", filepath.Join(dir, "local"), 0, ""},
		{"relative element", "bin", "tool", filepath.Join(bin, "tool"), 0, ""},
		{"slash, relative", "", "./local", filepath.Join(dir, "local"), 0, ""},
		{"slash, absolute", "", filepath.Join(bin, "tool"), filepath.Join(bin, "tool"), 0, ""},
		{"slash, missing", bin, "./missing", "", 127, "No such file or directory"},
		{"slash, directory", bin, "./bin", "", 126, "Is a directory"},
		{"slash, no exec bit", bin, "./locked", "", 126, "Permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := spawn.LookPath(tt.path, dir, tt.lookup)
			if tt.status == 0 {
				if err != nil || got != tt.want {
					t.Fatalf("LookPath = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			var le *spawn.LookPathError
			if !errors.As(err, &le) {
				t.Fatalf("LookPath = %q, %v; want a *LookPathError", got, err)
			}
			if le.Status != tt.status || le.Reason != tt.reason || le.Name != tt.lookup {
				t.Errorf("error = %+v, want status %d reason %q", *le, tt.status, tt.reason)
			}
			if want := tt.lookup + ": " + tt.reason; le.Error() != want {
				t.Errorf("Error() = %q, want %q", le.Error(), want)
			}
		})
	}
}

func FuzzLookPath(f *testing.F) {
	dir := f.TempDir()
	for _, seed := range [][2]string{{"/bin:/usr/bin", "sh"}, {"", "./x"}, {":::", ""}, {"/nonexistent", "a/b/c"}, {"\x00", "\x00"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, path, name string) {
		got, err := spawn.LookPath(path, dir, name)
		if err == nil && got == "" {
			t.Fatal("no path and no error")
		}
		var le *spawn.LookPathError
		if err != nil && (!errors.As(err, &le) || le.Status != 126 && le.Status != 127) {
			t.Fatalf("error %v is not a LookPathError with 126 or 127", err)
		}
	})
}
