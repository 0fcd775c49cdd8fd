package wrapped_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// TestPathUnderRace swaps a directory under the root for a symlink to
// outside, and back, in a tight loop (renameat2 RENAME_EXCHANGE, so the
// name always exists) while 300 path_under calls read a file through it:
// every call whose path is held (the sandbox profile's default, or
// hold: true in another profile) reads the file inside or is refused, none
// reads outside. (A path that is not held is the race this closes: the
// same loop with hold: false reads outside.)
func TestPathUnderRace(t *testing.T) {
	if _, err := os.Stat("/bin/cat"); err != nil {
		t.Skip("no /bin/cat")
	}
	const marker = "OUTSIDE-MARKER-7f3a"
	for _, tc := range []struct {
		link, hold string
	}{
		{"absolute", "sandbox"}, {"relative", "sandbox"},
		{"absolute", "hold true"}, {"relative", "hold true"},
	} {
		link := tc.link
		t.Run(link+"/"+tc.hold, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(base, "root")
			for _, d := range []string{"root/d", "outside"} {
				if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(root, "d", "secret"), []byte("inside\n"), 0o644)
			os.WriteFile(filepath.Join(base, "outside", "secret"), []byte(marker+"\n"), 0o644)
			target := filepath.Join(base, "outside")
			if link == "relative" {
				target = "../outside"
			}
			if err := os.Symlink(target, filepath.Join(root, "swap")); err != nil {
				t.Fatal(err)
			}
			file := wrapped.Arg("file").Required().Under(root)
			cfg, _ := kernel.Preset(kernel.ProfileSandbox)
			cfg.Root = root
			if tc.hold == "hold true" {
				file.Hold(true)
				cfg, _ = kernel.Preset(kernel.ProfileAgent)
			}
			rcat, err := wrapped.New("rcat", "/bin/cat").
				Root(wrapped.NewVerb("").Arg(file)).
				Build(wrapped.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cfg.OutputLimit = 64 << 10 // 300 refusal lines
			s := newSession(t, cfg, root, map[string]*wrapped.Command{"rcat": rcat})

			var swaps atomic.Int64
			stop := make(chan struct{})
			started := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, swap := filepath.Join(root, "d"), filepath.Join(root, "swap")
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
						t.Errorf("renameat2: %v", err)
						return
					}
					if swaps.Add(1) == 1 {
						close(started)
					}
				}
			}()
			<-started
			res := run(t, s, "for ((i = 0; i < 300; i++)); do rcat d/secret; done")
			during := swaps.Load()
			close(stop)
			wg.Wait()

			if strings.Contains(res.Stdout, marker) || strings.Contains(res.Stderr, marker) {
				t.Fatalf("a call read outside the root:\nstdout %q\nstderr %q", res.Stdout, res.Stderr)
			}
			reads := strings.Count(res.Stdout, "inside\n")
			if res.Stdout != strings.Repeat("inside\n", reads) {
				t.Errorf("stdout holds more than the inside file: %q", res.Stdout)
			}
			refusal := "rcat: file 'd/secret' is outside its directory; allowed: paths under " + root
			refused := 0
			for _, line := range strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n") {
				if line == refusal {
					refused++
				} else if line != "" {
					t.Errorf("stderr line %q, want only %q", line, refusal)
				}
			}
			if reads+refused != 300 {
				t.Errorf("%d reads and %d refusals, want 300 calls", reads, refused)
			}
			t.Logf("%d swaps, %d calls read inside, %d refused", during, reads, refused)
		})
	}
}

// A held path that passed the check but cannot be opened beneath the root
// is refused with the word as written, and nothing runs. A path that is
// not held reaches the program, which finds out on its own.
func TestPathUnderOpenRefusal(t *testing.T) {
	base := pathTree(t)
	app := filepath.Join(base, "app")
	held, err := wrapped.New("held", helper).
		Env(helperEnv, "argv").
		Root(wrapped.NewVerb("").Arg(wrapped.Arg("script").Under(app).Hold(true))).
		Build(wrapped.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, kernel.Config{}, app, map[string]*wrapped.Command{"py": underCommand(t, app), "held": held})
	res := run(t, s, "held x.py/sub")
	if want := "held: cannot open script 'x.py/sub': not a directory; allowed: a path that opens beneath its directory\n"; res.ExitCode != 2 || res.Stdout != "" || res.Stderr != want {
		t.Errorf("held: exit %d stdout %q stderr %q, want %q", res.ExitCode, res.Stdout, res.Stderr, want)
	}
	res = run(t, s, "py x.py/sub")
	if want := "[\"" + app + "/x.py/sub\"]\n"; res.ExitCode != 0 || res.Stdout != want {
		t.Errorf("py: exit %d stdout %q stderr %q, want %q", res.ExitCode, res.Stdout, res.Stderr, want)
	}
}
