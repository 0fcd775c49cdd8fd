package workspace

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Workspace is an open workspace directory:
//
//	W/repo.git/        bare repository; branches config/<name> and agents/<id>
//	W/agents/<id>/     a linked worktree per agent, on agents/<id>
//	W/inbox/<id>/      undelivered messages, one file each
//	W/skills/<name>/   the skill pool
//
// A Workspace is safe for concurrent use, also by several processes:
// operations that create agents hold a lock file in repo.git.
type Workspace struct {
	// Dir is the workspace directory, absolute.
	Dir string

	// Now is the clock for agent ids and message timestamps; nil means
	// time.Now. Set it before the first operation.
	Now func() time.Time
	// Rand is the source of the random part of agent ids; nil means
	// crypto/rand. Set it before the first operation.
	Rand io.Reader

	git *gitRunner
}

// Open opens the workspace in dir. It fails with a refusal when dir holds
// no repo.git.
func Open(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(filepath.Join(abs, "repo.git")); err != nil || !fi.IsDir() {
		return nil, &NotWorkspaceError{Dir: dir}
	}
	g, err := newGitRunner(abs, filepath.Join(abs, "repo.git"))
	if err != nil {
		return nil, err
	}
	return &Workspace{Dir: abs, git: g}, nil
}

// Init creates a workspace in dir, which must not exist or be empty, with
// a default config on branch config/main: roles worker and compactor,
// their souls, the descriptors (schema and skill) of dispatch, message and
// load_skill, and a workflow.yaml with budgets.max_depth.
func Init(ctx context.Context, dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(abs); err == nil && len(entries) > 0 {
		return nil, &WorkspaceExistsError{Dir: dir}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	repo := filepath.Join(abs, "repo.git")
	g, err := newGitRunner(abs, repo)
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"agents", "inbox", "skills"} {
		if err := os.MkdirAll(filepath.Join(abs, sub), 0o755); err != nil {
			return nil, err
		}
	}
	// No template: the repository holds no hooks and no info/ files, and
	// its config is shelter's own, which every later git call checks.
	if _, err := g.spawn(ctx, abs, nil, "-c", "init.defaultBranch=config/main", "init", "-q", "--bare", "--template=", repo); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(repo, "config"), []byte(repoConfig), 0o644); err != nil {
		return nil, err
	}
	ws := &Workspace{Dir: abs, git: g}
	if err := ws.commitFiles(ctx, configRefs+"main", defaultConfig(), "config: default roles worker and compactor"); err != nil {
		return nil, err
	}
	return ws, nil
}

// commitFiles makes a root commit holding files and points ref at it.
func (ws *Workspace) commitFiles(ctx context.Context, ref string, files map[string]string, subject string) error {
	var s importStream
	s.commit(ref, "", subject, ws.now())
	for _, name := range sortedKeys(files) {
		s.write(name, files[name])
	}
	return s.run(ctx, ws.git)
}

func (ws *Workspace) now() time.Time {
	if ws.Now != nil {
		return ws.Now()
	}
	return time.Now()
}

func (ws *Workspace) random() io.Reader {
	if ws.Rand != nil {
		return ws.Rand
	}
	return rand.Reader
}

// Worktree returns the directory of agent id's worktree.
func (ws *Workspace) Worktree(id string) string { return filepath.Join(ws.Dir, "agents", id) }

// inbox returns the directory of agent id's inbox.
func (ws *Workspace) inbox(id string) string { return filepath.Join(ws.Dir, "inbox", id) }

// lock takes the workspace's lock file, shared by every process that
// opens the workspace; the returned function releases it.
func (ws *Workspace) lock() (func(), error) {
	// O_NOFOLLOW: a link planted at the lock's name is refused, so that
	// taking the lock creates no file elsewhere.
	f, err := os.OpenFile(filepath.Join(ws.Dir, "repo.git", "shelter.lock"), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking the workspace: %w", err)
	}
	return func() { f.Close() }, nil
}

// NewAgent creates a root agent on config branch config/<config> ("main"
// when empty): a branch agents/<id> at the config's tip, its worktree and
// an empty inbox. It returns the new id.
func (ws *Workspace) NewAgent(ctx context.Context, config string) (string, error) {
	if config == "" {
		config = "main"
	}
	unlock, err := ws.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	r, err := ws.readRefs(ctx)
	if err != nil {
		return "", err
	}
	tip, ok := r.configs[config]
	if !ok {
		return "", &UnknownConfigError{Name: config, Configs: r.configNames()}
	}
	id, err := ws.mintID(r, "")
	if err != nil {
		return "", err
	}
	if _, err := ws.git.run(ctx, "", nil, "worktree", "add", "-q", "-b", "agents/"+id, ws.Worktree(id), tip); err != nil {
		return "", err
	}
	if err := os.MkdirAll(ws.inbox(id), 0o755); err != nil {
		return "", err
	}
	return id, nil
}
