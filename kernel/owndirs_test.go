package kernel_test

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/builtins"
	"github.com/shelter-sh/shelter/kernel"
)

// ownTree makes base/root, the session's directory, beside files outside
// it: base/victim.txt and base/outside/{secret,sub/secret}.
func ownTree(t *testing.T) (base, root string) {
	t.Helper()
	base = t.TempDir()
	root = filepath.Join(base, "root")
	for _, d := range []string{root, filepath.Join(base, "outside", "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		"victim.txt":         "original\n",
		"outside/secret":     outsideMarker + "\n",
		"outside/sub/secret": outsideMarker + "\n",
	} {
		if err := os.WriteFile(filepath.Join(base, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base, root
}

// outsideHash lists and hashes everything under base but root.
func outsideHash(t *testing.T, base, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return filepath.SkipDir
		}
		line := p + " " + d.Type().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// ownSession is a session of profile in root, with the coreutils.
func ownSession(t *testing.T, profile kernel.Profile, root string) *kernel.Session {
	t.Helper()
	cfg, ok := kernel.Preset(profile)
	if !ok {
		t.Fatalf("no profile %q", profile)
	}
	cfg.Tools = builtins.Coreutils()
	if profile == kernel.ProfileSandbox {
		cfg.Root = root
	}
	return newSession(t, cfg, kernel.SessionOptions{Dir: root})
}

// The report of issue 25: a link made where it resolves inside the root,
// then moved into the spill directory where the same text leads outside,
// used to be opened by shelter as the next job's log. The move is refused,
// and the log is shelter's own new file either way.
func TestSandboxSpillDirLinkEscape(t *testing.T) {
	for _, tc := range []struct{ name, target string }{
		{"existing", "../../../victim.txt"},
		{"dangling", "../../../created.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, root := ownTree(t)
			before := outsideHash(t, base, root)
			s := ownSession(t, kernel.ProfileSandbox, root)
			res := run(t, s, `sleep 60 &
SP=.shelter/shelter-spill-${TMPDIR##*/shelter-}
mkdir -p a/b/c && ln -s `+tc.target+` a/b/c/L
mv a/b/c/L "$SP/job-2.log"
printf "written by a sandboxed agent\n" & wait $!
kill %1`)
			spill := s.SpillDir()
			want := fmt.Sprintf("mv: cannot move 'a/b/c/L' to '.shelter/%s/job-2.log': %s is shelter's own, which a session reads but does not change; allowed: changes under $TMPDIR (%s)\n",
				filepath.Base(spill), spill, s.TempDir())
			if !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr %q; want the line %q", res.Stderr, want)
			}
			if fi, err := os.Lstat(filepath.Join(spill, "job-2.log")); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("job-2.log: %v, %v; want shelter's own regular file", fi, err)
			}
			if after := outsideHash(t, base, root); after != before {
				t.Errorf("the tree outside the root changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// bigOutput prints 40 KiB, past the 32 KiB the agent and sandbox
// profiles keep in memory, with no program.
const bigOutput = `s=xxxxxxxxxx; for i in 1 2 3 4 5 6 7 8 9 10 11 12; do s=$s$s; done; echo "$s"`

// Links planted, behind the opener's back, where shelter makes or opens
// a session's files: shelter follows none of them, in every profile, and
// nothing outside the root changes. A planted job log is replaced by a
// new file; a link at a directory makes what needs it fail with a line.
func TestOwnFilesPlantedLinks(t *testing.T) {
	type env struct {
		t          *testing.T
		s          *kernel.Session
		base, root string
	}
	plant := func(t *testing.T, target, link string) {
		t.Helper()
		// A sandbox's directories are in ROOT/.shelter, which shelter
		// would make.
		if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		// In the agent profile the links are in the system's temporary
		// directory.
		t.Cleanup(func() { os.Remove(link) })
	}
	cases := []struct {
		name    string
		sandbox bool // only in the sandbox profile
		do      func(e env)
	}{
		{name: "job log", do: func(e env) {
			run(e.t, e.s, "sleep 60 &")
			log := filepath.Join(e.s.SpillDir(), "job-2.log")
			// An existing file outside, then a dangling link: each time the
			// next job is number 2, and its log is a new file of shelter's.
			for i, target := range []string{"victim.txt", "created.txt"} {
				os.Remove(log)
				plant(e.t, filepath.Join(e.base, target), log)
				res := run(e.t, e.s, "echo job & wait $!")
				if res.Stderr != "" || res.ExitCode != 0 {
					e.t.Errorf("run %d: exit %d, stderr %q", i, res.ExitCode, res.Stderr)
				}
				if fi, err := os.Lstat(log); err != nil || !fi.Mode().IsRegular() {
					e.t.Errorf("run %d: job-2.log: %v; want shelter's own regular file", i, err)
				}
			}
			run(e.t, e.s, "kill %1")
		}},
		{name: "spill directory", do: func(e env) {
			plant(e.t, filepath.Join(e.base, "outside"), e.s.SpillDir())
			res := run(e.t, e.s, bigOutput+"; "+bigOutput+" >&2; true & wait")
			if res.SpillPath != "" || res.StderrSpillPath != "" || !strings.Contains(res.Stdout, "; no spill file could be written: ") {
				e.t.Errorf("spill %q, %q; stdout marker: %v", res.SpillPath, res.StderrSpillPath, strings.Contains(res.Stdout, "no spill file"))
			}
			want := "shelter: job log: " + e.s.SpillDir() + " exists already and is not this session's; refusing to use it"
			if !strings.Contains(res.Stderr, want) {
				e.t.Errorf("stderr %q; want %q", lastLines(res.Stderr), want)
			}
		}},
		{name: "spill directory replaced", do: func(e env) {
			run(e.t, e.s, "sleep 60 &")
			spill := e.s.SpillDir()
			if err := os.Rename(spill, spill+".old"); err != nil {
				e.t.Fatal(err)
			}
			e.t.Cleanup(func() { os.RemoveAll(spill + ".old") })
			plant(e.t, filepath.Join(e.base, "outside"), spill)
			res := run(e.t, e.s, bigOutput+"; "+bigOutput+" >&2; true & kill %1")
			if res.SpillPath != "" || res.StderrSpillPath != "" {
				e.t.Errorf("spilled to %q, %q through a link", res.SpillPath, res.StderrSpillPath)
			}
			if !strings.Contains(res.Stderr, "shelter: job log: open "+spill+": is a symbolic link") {
				e.t.Errorf("stderr %q names no link", lastLines(res.Stderr))
			}
		}},
		{name: "TMPDIR", do: func(e env) {
			plant(e.t, filepath.Join(e.base, "outside"), e.s.TempDir())
			res := run(e.t, e.s, `echo x > "$TMPDIR/secret"; echo x > "$TMPDIR/new"`)
			if !strings.Contains(res.Stderr, e.s.TempDir()+" exists already and is not this session's; refusing to use it") {
				e.t.Errorf("stderr %q", res.Stderr)
			}
		}},
		{name: "state directory", sandbox: true, do: func(e env) {
			plant(e.t, "../outside", filepath.Join(e.root, ".shelter"))
			res := run(e.t, e.s, bigOutput+"; true & wait; echo x > \"$TMPDIR/new\"")
			want := "mkdir " + filepath.Join(e.root, ".shelter") + ": is a symbolic link, and shelter follows none to its own files; allowed: a real directory, or none (shelter makes it)"
			if strings.Count(res.Stderr, want) < 2 || res.SpillPath != "" {
				e.t.Errorf("stderr %q, spill %q; want the line %q for the job and $TMPDIR", res.Stderr, res.SpillPath, want)
			}
		}},
		{name: "removed without following", do: func(e env) {
			run(e.t, e.s, bigOutput+"; sleep 60 & : > \"$TMPDIR/made\"")
			plant(e.t, filepath.Join(e.base, "outside"), filepath.Join(e.s.SpillDir(), "dir-link"))
			plant(e.t, filepath.Join(e.base, "outside"), filepath.Join(e.s.TempDir(), "dir-link"))
			plant(e.t, filepath.Join(e.base, "victim.txt"), filepath.Join(e.s.TempDir(), "file-link"))
			spill, tmp := e.s.SpillDir(), e.s.TempDir()
			if err := e.s.Close(); err != nil {
				e.t.Fatal(err)
			}
			for _, d := range []string{spill, tmp} {
				if _, err := os.Lstat(d); !os.IsNotExist(err) {
					e.t.Errorf("%s left behind: %v", d, err)
				}
			}
		}},
	}
	for _, profile := range []kernel.Profile{kernel.ProfileSandbox, kernel.ProfileAgent} {
		for _, tc := range cases {
			if tc.sandbox && profile != kernel.ProfileSandbox {
				continue
			}
			t.Run(string(profile)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				base, root := ownTree(t)
				before := outsideHash(t, base, root)
				s := ownSession(t, profile, root)
				tc.do(env{t: t, s: s, base: base, root: root})
				if after := outsideHash(t, base, root); after != before {
					t.Errorf("the tree outside the root changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
			})
		}
	}
}

// lastLines is the end of a long text, for a failure message.
func lastLines(s string) string {
	if len(s) > 600 {
		return "…" + s[len(s)-600:]
	}
	return s
}

// Through the opener a session reads shelter's files but changes none of
// them, by their names or through a link; what $TMPDIR holds stays the
// script's.
func TestOwnDirsRefusals(t *testing.T) {
	for _, profile := range []kernel.Profile{kernel.ProfileSandbox, kernel.ProfileAgent} {
		t.Run(string(profile), func(t *testing.T) {
			t.Parallel()
			base, root := ownTree(t)
			before := outsideHash(t, base, root)
			s := ownSession(t, profile, root)
			if res := run(t, s, `sleep 60 & : > "$TMPDIR/made"; echo inside > inside`); res.ExitCode != 0 {
				t.Fatalf("setup: %+v", res)
			}
			sp, tmp := s.SpillDir(), s.TempDir()
			line := func(dir string) string {
				return dir + " is shelter's own, which a session reads but does not change; allowed: changes under $TMPDIR (" + tmp + ")"
			}
			refused := []struct{ script, dir string }{
				{`echo x > "$SP/job-1.log"`, sp},
				{`echo x >> "$SP/job-1.log"`, sp},
				{`echo x > "$SP/new"`, sp},
				{`rm "$SP/job-1.log"`, sp},
				{`rm -rf "$SP"`, sp},
				{`mv "$SP/job-1.log" moved`, sp},
				{`mv inside "$SP/job-1.log"`, sp},
				{`mv "$SP" moved`, sp},
				{`ln -s inside "$SP/l"`, sp},
				{`ln "$SP/job-1.log" hard`, sp},
				{`cp inside "$SP/job-1.log"`, sp},
				{`touch "$SP/job-1.log"`, sp},
				{`mkdir "$SP/d"`, sp},
				{`ln -s "$SP" via && echo x > via/job-1.log`, sp},
				{`ln -s "$SP/job-1.log" vialog && echo x > vialog`, sp},
				{`rmdir "$TMPDIR"`, tmp},
				{`mv "$TMPDIR" moved`, tmp},
			}
			if profile == kernel.ProfileSandbox {
				state := filepath.Join(root, ".shelter")
				refused = append(refused,
					struct{ script, dir string }{`mv .shelter moved`, state},
					struct{ script, dir string }{`mkdir .shelter/mine`, state},
					struct{ script, dir string }{`echo x > .shelter/f`, state})
			}
			for _, r := range refused {
				res := run(t, s, "SP='"+sp+"'\n"+r.script)
				if res.ExitCode == 0 || !strings.Contains(res.Stderr, line(r.dir)) {
					t.Errorf("%s: exit %d, stderr %q; want a refusal naming %s", r.script, res.ExitCode, res.Stderr, r.dir)
				}
			}
			res := run(t, s, "SP='"+sp+"'\n"+`cat "$SP/job-1.log" >/dev/null && echo x > "$TMPDIR/f" && mv "$TMPDIR/f" "$TMPDIR/g" && mkdir "$TMPDIR/d" && rm -r "$TMPDIR/g" "$TMPDIR/d" && ls "$SP" >/dev/null && kill %1`)
			if res.ExitCode != 0 {
				t.Errorf("reading shelter's files and using $TMPDIR: exit %d, stderr %q", res.ExitCode, res.Stderr)
			}
			if after := outsideHash(t, base, root); after != before {
				t.Errorf("the tree outside the root changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// What holds shelter's directories is still the session's: mkdir -p
// and touch of the root work, and rm -rf of it removes the
// session's files but none of shelter's.
func TestOwnDirsAncestors(t *testing.T) {
	_, root := ownTree(t)
	s := ownSession(t, kernel.ProfileSandbox, root)
	res := run(t, s, `sleep 60 & : > "$TMPDIR/made"; mkdir -p . sub/x && touch . sub && echo ok`)
	if res.Stdout != "ok\n" || res.ExitCode != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(t, s, `rm -rf "$PWD"`)
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "is shelter's own, which a session reads but does not change") {
		t.Errorf("rm -rf of the root: exit %d, stderr %q; want shelter's directories refused", res.ExitCode, res.Stderr)
	}
	for _, p := range []string{s.TempDir(), filepath.Join(s.SpillDir(), "job-1.log")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{filepath.Join(root, "sub"), filepath.Join(s.TempDir(), "made")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s: %v; want it removed", p, err)
		}
	}
	run(t, s, "kill %1")
}
