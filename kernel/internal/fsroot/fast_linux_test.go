package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The quick way beneath the root answers every name as os.Root does: the
// same file, or the same error (an escape as an escape), for stat, lstat
// and a plain open, through links inside the root, links that leave it
// (relative and absolute), dangling links, loops, a FIFO and a directory.
func TestBeneathFastAgreesWithRoot(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{"a/b/c.txt": "deep", "top.txt": "top"}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in":       "a/b/c.txt",
		"a/up":     "../top.txt",
		"a/dir":    "b",
		"abs-in":   filepath.Join(dir, "top.txt"),
		"escape":   "../../../../../../" + outside + "/secret",
		"abs-out":  filepath.Join(outside, "secret"),
		"dangling": "nowhere",
		"loop1":    "loop2",
		"loop2":    "loop1",
		"a/b/far":  "../../../",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	fd, err := root.fast.open(dir, "a/b/c.txt", syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatalf("the quick way does not answer a plain deep name: %v", err)
	}
	syscall.Close(fd)

	names := []string{".", "a", "a/b", "a/b/c.txt", "top.txt", "in", "a/up", "a/dir/c.txt", "abs-in",
		"escape", "abs-out", "dangling", "loop1", "a/b/far", "a/b/far/secret", "fifo", "nope", "top.txt/x",
		"in/x", "a/dir", "a/b/../../top.txt"}
	for _, name := range names {
		for _, follow := range []bool{true, false} {
			got, gerr := root.stat(name, follow)
			var want fs.FileInfo
			var werr error
			if follow {
				want, werr = root.r.Stat(name)
			} else {
				want, werr = root.r.Lstat(name)
			}
			if !sameAnswer(got, gerr, want, werr, root) {
				t.Errorf("stat(%q, follow %v) = %v, %v; os.Root: %v, %v", name, follow, info(got), gerr, info(want), werr)
			}
		}
		fi, err := root.r.Stat(name)
		if err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
			continue // openPlain is for regular files and directories only
		}
		got, gerr := root.openPlain(name, os.O_RDONLY, 0)
		want, werr := root.r.OpenFile(name, os.O_RDONLY, 0)
		var gi, wi fs.FileInfo
		if gerr == nil {
			gi, _ = got.Stat()
			got.Close()
		}
		if werr == nil {
			wi, _ = want.Stat()
			want.Close()
		}
		if !sameAnswer(gi, gerr, wi, werr, root) {
			t.Errorf("openPlain(%q) = %v, %v; os.Root: %v, %v", name, info(gi), gerr, info(wi), werr)
		}
	}
}

// sameAnswer: the same file (device and inode), or errors of one kind.
func sameAnswer(got fs.FileInfo, gerr error, want fs.FileInfo, werr error, root *Root) bool {
	if (gerr == nil) != (werr == nil) {
		return false
	}
	if gerr != nil {
		gfix, wfix := root.fix(gerr, "stat", "x"), root.fix(werr, "stat", "x")
		return errors.Is(gfix, ErrOutsideRoot) == errors.Is(wfix, ErrOutsideRoot) &&
			errors.Is(gerr, fs.ErrNotExist) == errors.Is(werr, fs.ErrNotExist) &&
			errors.Is(gerr, syscall.ENOTDIR) == errors.Is(werr, syscall.ENOTDIR)
	}
	g, w := got.Sys().(*syscall.Stat_t), want.Sys().(*syscall.Stat_t)
	return g.Dev == w.Dev && g.Ino == w.Ino && got.Mode() == want.Mode()
}

func info(fi fs.FileInfo) string {
	if fi == nil {
		return "<nil>"
	}
	return fi.Mode().String()
}

// Without openat2's descriptor (a closed root, a system without it) every
// name goes to os.Root.
func TestBeneathFastFallsBack(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	root.fast.close() // as if openat2 were never to be used
	if _, err := root.fast.open(dir, "f", os.O_RDONLY, 0); err != errNotAnswered {
		t.Fatalf("open after close: %v, want errNotAnswered", err)
	}
	fi, err := root.stat("f", true)
	if err != nil || fi.Size() != 1 {
		t.Fatalf("stat through os.Root: %v, %v", fi, err)
	}
}

// TestStatFDAsOsStat holds statFD's FileInfo to os.Lstat's for every kind
// of file and the mode bits os sets.
func TestStatFDAsOsStat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("12345"), 0o640); err != nil {
		t.Fatal(err)
	}
	sticky := filepath.Join(dir, "sticky")
	if err := os.Mkdir(sticky, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sticky, 0o755|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	setuid := filepath.Join(dir, "setuid")
	if err := os.WriteFile(setuid, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(setuid, 0o755|os.ModeSetuid|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("f", link); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{file, dir, sticky, setuid, fifo, link, os.DevNull} {
		fd, err := unix.Open(name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := statFD(fd, name)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name() != want.Name() || got.Mode() != want.Mode() || got.Size() != want.Size() ||
			!got.ModTime().Equal(want.ModTime()) || got.IsDir() != want.IsDir() {
			t.Errorf("%s: statFD %s %s %d %v, os.Lstat %s %s %d %v", name,
				got.Name(), got.Mode(), got.Size(), got.ModTime(), want.Name(), want.Mode(), want.Size(), want.ModTime())
		}
	}
}
