package spawn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/shelter-sh/shelter/spawn"
)

// ExtraFiles become descriptors 3, 4, … of the child, with and without a
// terminal; the caller's descriptors stay open.
func TestRunExtraFiles(t *testing.T) {
	dir := t.TempDir()
	var files []*os.File
	for _, name := range []string{"a", "b"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("file "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files = append(files, f)
	}
	for _, tty := range []bool{false, true} {
		for _, f := range files {
			f.Seek(0, 0)
		}
		var out strings.Builder
		c := shCmd(t, "cat <&3; cat <&4")
		c.ExtraFiles = files
		c.Stdout = &out
		if tty {
			c.TTY = &pty.Winsize{Rows: 24, Cols: 80}
		}
		status, err := spawn.Run(context.Background(), c)
		got := strings.ReplaceAll(out.String(), "\r\n", "\n")
		if status != 0 || err != nil || got != "file a\nfile b\n" {
			t.Errorf("tty %v: status %d err %v stdout %q", tty, status, err, got)
		}
	}
	if _, err := files[0].Stat(); err != nil {
		t.Errorf("the caller's file was closed: %v", err)
	}
}
