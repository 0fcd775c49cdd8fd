package beneath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// setup makes base/ with a link to outside/ beside it, and returns base
// opened, and the outside file every test asserts is left alone.
func setup(t *testing.T) (*os.File, string, string) {
	t.Helper()
	top := t.TempDir()
	base, outside := filepath.Join(top, "base"), filepath.Join(top, "outside")
	for _, d := range []string{base, outside, filepath.Join(base, "sub")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("original"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"to-dir":   outside,
		"to-file":  victim,
		"dangling": filepath.Join(outside, "new"),
		"sub/up":   "../../outside/victim",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	d, err := os.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, base, outside
}

func assertOutside(t *testing.T, outside string) {
	t.Helper()
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "victim" {
		t.Errorf("outside holds %v; want only victim", entries)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "victim")); err != nil || string(b) != "original" {
		t.Errorf("victim reads %q, %v; want it untouched", b, err)
	}
}

func TestNoLinkFollowed(t *testing.T) {
	for _, walkOnly := range []bool{false, true} {
		name := "openat2"
		if walkOnly {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			if walkOnly {
				old := HaveOpenat2
				HaveOpenat2 = func() bool { return false }
				t.Cleanup(func() { HaveOpenat2 = old })
			}
			d, base, outside := setup(t)
			for _, rel := range []string{"to-file", "dangling", "sub/up", "to-dir/victim", "to-dir/new"} {
				f, err := Create(d, rel, 0o600)
				if err == nil {
					f.Close()
					t.Errorf("Create(%q) succeeded", rel)
				}
				f, err = Open(d, rel, os.O_WRONLY|os.O_TRUNC, 0)
				if err == nil {
					f.Close()
					t.Errorf("Open(%q) succeeded", rel)
				}
				if !errors.Is(err, ErrSymlink) {
					t.Errorf("Open(%q): %v; want ErrSymlink", rel, err)
				}
			}
			err := Mkdir(d, "to-dir/made", 0o700)
			if want := "mkdir " + base + "/to-dir: " + ErrSymlink.Error(); err == nil || err.Error() != want {
				t.Errorf("Mkdir through a link: %v; want %s", err, want)
			}
			if err := Mkdir(d, "dangling", 0o700); !errors.Is(err, fs.ErrExist) {
				t.Errorf("Mkdir at a link: %v; want ErrExist", err)
			}
			if _, err := Open(d, "../outside/victim", os.O_RDONLY, 0); err == nil {
				t.Error(`Open("../outside/victim") succeeded`)
			}
			if err := RemoveAll(d, "to-dir/victim"); !errors.Is(err, ErrSymlink) {
				t.Errorf("RemoveAll through a link: %v; want ErrSymlink", err)
			}
			assertOutside(t, outside)
			if err := RemoveAll(d, "sub"); err != nil {
				t.Fatal(err)
			}
			for _, rel := range []string{"to-dir", "to-file", "dangling"} {
				if err := Remove(d, rel); err != nil {
					t.Fatal(err)
				}
			}
			assertOutside(t, outside)
			if entries, _ := os.ReadDir(base); len(entries) != 0 {
				t.Errorf("base still holds %v", entries)
			}
		})
	}
}

func TestCreateMakesNew(t *testing.T) {
	d, base, _ := setup(t)
	if err := Mkdir(d, "spill", 0o700); err != nil {
		t.Fatal(err)
	}
	sd, err := OpenDir(d, "spill")
	if err != nil {
		t.Fatal(err)
	}
	defer sd.Close()
	f, err := CreateTemp(sd, "stdout-", ".out")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	f.Close()
	if filepath.Dir(f.Name()) != filepath.Join(base, "spill") {
		t.Errorf("Name() = %s; want a file in %s/spill", f.Name(), base)
	}
	if _, err := Create(sd, filepath.Base(f.Name()), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create of an existing file: %v; want ErrExist", err)
	}
	if err := RemoveAll(d, "spill"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(base, "spill")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("spill left behind: %v", err)
	}
	var st unix.Stat_t
	if unix.Fstat(int(d.Fd()), &st) != nil {
		t.Error("base closed")
	}
}

func TestPlainNames(t *testing.T) {
	d, _, _ := setup(t)
	for _, rel := range []string{"", ".", "..", "/etc", "sub/../x", "sub//x", "sub/"} {
		if _, err := Open(d, rel, os.O_RDONLY, 0); !errors.Is(err, errName) {
			t.Errorf("Open(%q): %v; want errName", rel, err)
		}
	}
}

// TestRemoveAllReadOnly removes a tree whose directories are read-only,
// as Go's module cache makes them; the link in it is removed, not
// followed, and what it leads to keeps its mode.
func TestRemoveAllReadOnly(t *testing.T) {
	d, base, outside := setup(t)
	tree := filepath.Join(base, "mod", "example.com", "m@v1")
	if err := os.MkdirAll(tree, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "go.mod"), []byte("module m\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "out")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{tree, filepath.Dir(tree), filepath.Join(base, "mod")} {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveAll(d, "mod"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(base, "mod")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("mod left behind: %v", err)
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("outside: %v, %v; want it untouched, 0700", fi, err)
	}
	assertOutside(t, outside)
}
