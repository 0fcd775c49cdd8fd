package fsroot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"
)

// The empty name is no file for every operation of the opener, the
// shell's as the in-process commands': joined to the working directory it
// named that directory, so `touch ""` succeeded and `cat ""` read a
// directory.
func TestOpenerEmptyNameIsNoFile(t *testing.T) {
	dir := t.TempDir()
	for _, root := range []bool{false, true} {
		o := &Opener{dir: dir}
		if root {
			c, err := OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			o.root, o.dir = c, c.dir
		}
		_, openErr := o.OpenFile(context.Background(), "", os.O_RDONLY, 0)
		_, statErr := o.Stat("")
		_, lstatErr := o.Lstat("")
		_, readDirErr := o.ReadDir("")
		_, readlinkErr := o.Readlink("")
		_, realpathErr := o.EvalSymlinks("")
		for op, err := range map[string]error{
			"open": openErr, "stat": statErr, "lstat": lstatErr, "readdir": readDirErr,
			"access":   o.Access("", 4),
			"mkdir":    o.Mkdir("", 0o755),
			"remove":   o.Remove(""),
			"chmod":    o.Chmod("", 0o644),
			"chtimes":  o.Chtimes("", time.Now(), time.Now()),
			"readlink": readlinkErr, "realpath": realpathErr,
			"rename":  o.Rename("", "x"),
			"link":    o.Link("x", ""),
			"symlink": o.Symlink("x", ""),
		} {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("root %v: %s of the empty name: %v, want ENOENT", root, op, err)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the directory changed: %v", entries)
	}
}
