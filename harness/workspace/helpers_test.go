package workspace

import (
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// counterRand is a deterministic random source: 4-byte big-endian counts.
type counterRand struct {
	mu sync.Mutex
	n  uint32
}

func (r *counterRand) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 0; i < len(p); i += 4 {
		r.n++
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], r.n)
		copy(p[i:], b[:])
	}
	return len(p), nil
}

// stepClock starts at a fixed instant and advances one second a reading.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// newWorkspace makes a fresh workspace with a deterministic clock and ids.
func newWorkspace(t *testing.T) *Workspace {
	t.Helper()
	ws, err := Init(context.Background(), filepath.Join(t.TempDir(), "w"))
	if err != nil {
		t.Fatal(err)
	}
	clock := &stepClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	ws.Now = clock.Now
	ws.Rand = &counterRand{}
	return ws
}

func newRoot(t *testing.T, ws *Workspace) string {
	t.Helper()
	id, err := ws.NewAgent(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// git runs git in the workspace (dir "" = repo.git) and returns trimmed
// stdout.
func git(t *testing.T, ws *Workspace, dir string, args ...string) string {
	t.Helper()
	out, err := ws.git.run(context.Background(), dir, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// editConfig commits a change to config branch config/<name> (created as
// an orphan when it does not exist): files to write ("" content removes).
func editConfig(t *testing.T, ws *Workspace, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "config-"+name)
	branch := "config/" + name
	if _, err := ws.git.run(context.Background(), "", nil, "rev-parse", "--verify", "-q", "refs/heads/"+branch); err == nil {
		git(t, ws, "", "worktree", "add", "-q", dir, branch)
	} else {
		git(t, ws, "", "worktree", "add", "-q", "--detach", dir)
		git(t, ws, dir, "checkout", "-q", "--orphan", branch)
		git(t, ws, dir, "rm", "-r", "-q", "--cached", ".")
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != ".git" {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
	for f, content := range files {
		p := filepath.Join(dir, f)
		if content == "" {
			git(t, ws, dir, "rm", "-q", "--", f)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, ws, dir, "add", "--", f)
	}
	git(t, ws, dir, "commit", "-q", "-m", "config: test edit")
	sha := git(t, ws, dir, "rev-parse", "HEAD")
	git(t, ws, "", "worktree", "remove", "--force", dir)
	return sha
}

// state is what a refused operation must leave unchanged.
type state struct {
	refs, worktrees, files []string
}

func snapshot(t *testing.T, ws *Workspace) state {
	t.Helper()
	var s state
	s.refs = strings.Split(git(t, ws, "", "for-each-ref", "--format=%(refname) %(objectname)"), "\n")
	for _, l := range strings.Split(git(t, ws, "", "worktree", "list", "--porcelain"), "\n") {
		if strings.HasPrefix(l, "worktree ") {
			s.worktrees = append(s.worktrees, l)
		}
	}
	for _, sub := range []string{"inbox", "agents"} {
		root := filepath.Join(ws.Dir, sub)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if sub == "agents" && d.IsDir() && d.Name() != "agents" && filepath.Dir(p) != root {
				return fs.SkipDir // the worktrees' content is not the point
			}
			s.files = append(s.files, strings.TrimPrefix(p, ws.Dir))
			return nil
		})
	}
	sort.Strings(s.files)
	return s
}

func sameState(t *testing.T, before, after state) {
	t.Helper()
	for _, c := range []struct {
		what string
		a, b []string
	}{{"refs", before.refs, after.refs}, {"worktrees", before.worktrees, after.worktrees}, {"files", before.files, after.files}} {
		if strings.Join(c.a, "\n") != strings.Join(c.b, "\n") {
			t.Errorf("%s changed:\nbefore %q\nafter  %q", c.what, c.a, c.b)
		}
	}
}

// treeFiles lists the files at the tip of agent id's branch.
func treeFiles(t *testing.T, ws *Workspace, id string) []string {
	t.Helper()
	return strings.Split(git(t, ws, "", "ls-tree", "-r", "--name-only", agentRefs+id), "\n")
}

func asError[T error](err error, target *T) bool { return errors.As(err, target) }
