package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestLoadToolFileBothSections(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.yaml")
	src := "commands:\n  say:\n    executable: /bin/echo\n    verbs:\n      hi: {}\ntools:\n  ping:\n    description: Answer pong.\n    input: {type: object}\n    run: [/bin/cat]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tools, err := loadToolFile(file, os.Getenv("PATH"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name() != "say" || tools[0].Kind() != kernel.Wrapped || tools[1].Name() != "ping" || tools[1].Kind() != kernel.Harness {
		t.Fatalf("tools: %v", tools)
	}
}

func TestLoadToolFileRefusesAnEmptyFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(file, []byte("# nothing yet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadToolFile(file, "")
	if want := file + ":1:1: empty file; want a mapping with the keys commands and/or tools"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
