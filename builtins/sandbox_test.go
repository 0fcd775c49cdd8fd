package builtins

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// This file holds what the sandbox tests share: a session confined to a
// root, the trees with something outside the root to reach for, and the
// check that an escape is refused and changes nothing outside.

// sandboxSession starts a session of a sandbox-profile kernel confined to
// root, with only tools registered, in the C locale and UTC, and env set
// besides. The session closes when the test ends.
func sandboxSession(t *testing.T, root string, tools []kernel.Tool, env map[string]string) *kernel.Session {
	t.Helper()
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root = root
	cfg.Tools = tools
	cfg.Env["LC_ALL"] = "C"
	cfg.Env["TZ"] = "UTC"
	for k, v := range env {
		cfg.Env[k] = v
	}
	k, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: root, DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sandboxRun runs script in a sandbox session confined to root, with only
// tools registered, in the C locale and UTC.
func sandboxRun(t *testing.T, tools []kernel.Tool, root, script string) kernel.Result {
	t.Helper()
	s := sandboxSession(t, root, tools, nil)
	defer s.Close()
	res, err := s.Run(context.Background(), script, kernel.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// secretTree makes a fresh root holding files, in a parent that holds an
// outside file "secret" with the given content, and links inside the
// root to it (abs-link, rel-link). It returns the parent and the root.
func secretTree(t *testing.T, files map[string]string, secret string) (parent, root string) {
	t.Helper()
	parent = t.TempDir()
	root = filepath.Join(parent, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "secret"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, files)
	if err := os.Symlink(filepath.Join(parent, "secret"), filepath.Join(root, "abs-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret", filepath.Join(root, "rel-link")); err != nil {
		t.Fatal(err)
	}
	return parent, root
}

// secretRun runs script in a sandbox session whose root is a fresh
// secretTree of files and secret, with $OUT in the script replaced by the
// root's parent. It returns the result and the parent.
func secretRun(t *testing.T, tools []kernel.Tool, files map[string]string, secret, script string) (kernel.Result, string) {
	t.Helper()
	parent, root := secretTree(t, files, secret)
	return sandboxRun(t, tools, root, strings.ReplaceAll(script, "$OUT", parent)), parent
}

// sandboxEscape is a script that must be refused in a confined session.
type sandboxEscape struct {
	script string
	// line is a substring of the refusal on stderr; empty means the
	// opener's "outside the sandbox root".
	line string
}

// outsideNames name the outside tree of checkEscapes each one way:
// absolute, .., a link to it (absolute, relative), a chain of directory
// links.
var outsideNames = []string{"$OUT/secret", "../outside/secret", "out/secret", "rel/secret", "chain/secret", "out/sub", "chain/sub"}

// checkEscapes runs each script in a sandboxed session whose root holds
// links that lead outside it (out: absolute, rel: relative, chain: a
// chain of directory links), and wants each refused with the opener's
// line, nothing of the outside tree on stdout, and the outside tree, listed
// and hashed, unchanged. $OUT in a script is the outside directory.
func checkEscapes(t *testing.T, tools []kernel.Tool, escapes []sandboxEscape) {
	t.Helper()
	for _, e := range escapes {
		t.Run(e.script, func(t *testing.T) {
			t.Parallel()
			checkEscape(t, tools, e)
		})
	}
}

// checkEscape runs one escape in a sandbox of its own and checks it was
// refused and changed nothing outside.
func checkEscape(t *testing.T, tools []kernel.Tool, e sandboxEscape) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	writeFiles(t, root, map[string]string{"f": "inside\n", "d/": ""})
	writeFiles(t, outside, map[string]string{"secret": "SECRET-OUTSIDE\n", "sub/x": "SECRET-SUB\n"})
	for link, target := range map[string]string{
		"out": outside, "rel": "../outside", "chain": "chain2", "chain2": "d/hop", "d/hop": "../../outside",
		"secretlink": filepath.Join(outside, "secret"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	before := treeSnapshot(t, outside)
	s := sandboxSession(t, root, tools, map[string]string{"OUT": outside})
	res, err := s.Run(context.Background(), e.script, kernel.RunOptions{})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	line := e.line
	if line == "" {
		line = "outside the sandbox root; allowed: paths under " + root
	}
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, line) {
		t.Errorf("%s: status %d, stderr %q; want a refusal with %q", e.script, res.ExitCode, res.Stderr, line)
	}
	if strings.Contains(res.Stdout, "SECRET") || strings.Contains(res.Stderr, "SECRET") {
		t.Errorf("%s: read outside the root: %q %q", e.script, res.Stdout, res.Stderr)
	}
	if after := treeSnapshot(t, outside); after != before {
		t.Errorf("%s: the outside tree changed:\n%s\nwas:\n%s", e.script, after, before)
	}
	if strings.Contains(treeSnapshot(t, root), "SECRET") {
		t.Errorf("%s: outside content copied into the root", e.script)
	}
}

// treeSnapshot lists a tree with each entry's mode, times and content
// hash.
func treeSnapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d", p, fi.Mode(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
			if strings.Contains(string(data), "SECRET") {
				b.WriteString(" SECRET")
			}
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
