package fsroot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Every changing operation of the opener refuses shelter's directories
// with a *ShelterDirError naming the directory, in the sandbox and out of
// it; reading them and changing what $TMPDIR holds is allowed.
func TestOpenerShelterDirError(t *testing.T) {
	for _, sandbox := range []bool{false, true} {
		root := t.TempDir()
		o := &Opener{dir: root, tmp: new(SessionDir), spills: new(SessionDir)}
		rootName := ""
		if sandbox {
			c, err := OpenRoot(root)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			o.root, o.dir, rootName = c, c.dir, c.dir
		}
		NameDirs(o.tmp, o.spills, rootName)
		if !sandbox {
			// Outside the sandbox the directories are in the system's
			// temporary directory: put it in the test's.
			o.tmp.base, o.spills.base = root, root
			o.tmp.path, o.spills.path = filepath.Join(root, o.tmp.name), filepath.Join(root, o.spills.name)
		}
		defer o.tmp.Remove(true)
		defer o.spills.Remove(true)
		if err := o.tmp.Ensure(); err != nil {
			t.Fatal(err)
		}
		f, err := o.spills.Create("job-1.log")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		sp, tmp := o.spills.path, o.tmp.path
		log := filepath.Join(sp, "job-1.log")
		if err := os.WriteFile(filepath.Join(o.dir, "mine"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		openW := func(name string) error {
			f, err := o.OpenFile(context.Background(), name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err == nil {
				f.Close()
			}
			return err
		}
		for _, c := range []struct {
			op  string
			err error
			dir string
		}{
			{"open", openW(log), sp},
			{"open new", openW(filepath.Join(sp, "new")), sp},
			{"mkdir", o.Mkdir(filepath.Join(sp, "d"), 0o755), sp},
			{"mkdir -p", o.MkdirAll(filepath.Join(sp, "d/e"), 0o755), sp},
			{"remove", o.Remove(log), sp},
			{"remove all", o.RemoveAll(sp), sp},
			{"remove tmp", o.Remove(tmp), tmp},
			{"chmod", o.Chmod(log, 0o777), sp},
			{"chtimes", o.Chtimes(log, time.Now(), time.Now()), sp},
			{"rename from", o.Rename(log, "moved"), sp},
			{"rename to", o.Rename("mine", log), sp},
			{"rename tmp", o.Rename(tmp, "moved"), tmp},
			{"link from", o.Link(log, "hard"), sp},
			{"link to", o.Link("mine", filepath.Join(sp, "hard")), sp},
			{"symlink", o.Symlink("mine", filepath.Join(sp, "l")), sp},
		} {
			var se *ShelterDirError
			if !errors.As(c.err, &se) || !errors.Is(c.err, ErrShelterDir) || se.Dir != c.dir || se.TmpDir != tmp {
				t.Errorf("sandbox %v: %s: %v; want a ShelterDirError for %s", sandbox, c.op, c.err, c.dir)
				continue
			}
			want := c.dir + " is shelter's own, which a session reads but does not change; allowed: changes under $TMPDIR (" + tmp + ")"
			if se.Error() != want {
				t.Errorf("%s: %q; want %q", c.op, se.Error(), want)
			}
		}
		if r, err := o.Open(context.Background(), log); err != nil {
			t.Errorf("sandbox %v: reading the log: %v", sandbox, err)
		} else {
			r.Close()
		}
		if err := openW(filepath.Join(tmp, "f")); err != nil {
			t.Errorf("sandbox %v: writing under $TMPDIR: %v", sandbox, err)
		}
		if err := o.Rename(filepath.Join(tmp, "f"), filepath.Join(tmp, "g")); err != nil {
			t.Errorf("sandbox %v: renaming under $TMPDIR: %v", sandbox, err)
		}
		if fi, err := os.Lstat(log); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("sandbox %v: the log is gone: %v", sandbox, err)
		}
	}
}
