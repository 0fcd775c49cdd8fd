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
	"sort"
	"strings"
	"syscall"
	"time"
)

// Branch namespaces in repo.git.
const (
	agentRefs  = "refs/heads/agents/"
	configRefs = "refs/heads/config/"
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
	for _, sub := range []string{"agents", "inbox", "skills"} {
		if err := os.MkdirAll(filepath.Join(abs, sub), 0o755); err != nil {
			return nil, err
		}
	}
	repo := filepath.Join(abs, "repo.git")
	g, err := newGitRunner(abs, repo)
	if err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, abs, nil, "-c", "init.defaultBranch=config/main", "init", "-q", "--bare", repo); err != nil {
		return nil, err
	}
	ws := &Workspace{Dir: abs, git: g}
	if _, err := ws.commitFiles(ctx, "refs/heads/config/main", defaultConfig(), "config: default roles worker and compactor"); err != nil {
		return nil, err
	}
	return ws, nil
}

// commitFiles makes a root commit holding files and points ref at it. It
// works on the bare repository with a throwaway index.
func (ws *Workspace) commitFiles(ctx context.Context, ref string, files map[string]string, subject string) (string, error) {
	tmp, err := os.MkdirTemp("", "shelter-workspace-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	var info strings.Builder
	for _, name := range sortedKeys(files) {
		sha, err := ws.git.run(ctx, "", strings.NewReader(files[name]), "hash-object", "-w", "--stdin")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&info, "100644 %s\t%s\n", strings.TrimSpace(string(sha)), name)
	}
	g := *ws.git
	g.env = append(append([]string(nil), g.env...), "GIT_INDEX_FILE="+filepath.Join(tmp, "index"))
	if _, err := g.run(ctx, "", strings.NewReader(info.String()), "update-index", "--add", "--index-info"); err != nil {
		return "", err
	}
	tree, err := g.run(ctx, "", nil, "write-tree")
	if err != nil {
		return "", err
	}
	commit, err := g.run(ctx, "", nil, "commit-tree", "-m", subject, strings.TrimSpace(string(tree)))
	if err != nil {
		return "", err
	}
	sha := strings.TrimSpace(string(commit))
	if _, err := g.run(ctx, "", nil, "update-ref", ref, sha, ""); err != nil {
		return "", err
	}
	return sha, nil
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
	f, err := os.OpenFile(filepath.Join(ws.Dir, "repo.git", "shelter.lock"), os.O_CREATE|os.O_RDWR, 0o644)
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

// refNames lists the branches under prefix (a refs/heads/… namespace),
// without the prefix, sorted.
func (ws *Workspace) refNames(ctx context.Context, prefix string) ([]string, error) {
	lines, err := ws.git.lines(ctx, "", "for-each-ref", "--format=%(refname)", prefix)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(lines))
	for _, l := range lines {
		names = append(names, strings.TrimPrefix(l, prefix))
	}
	sort.Strings(names)
	return names, nil
}

// Agents returns the ids of every agent of the workspace, sorted (a parent
// before its children).
func (ws *Workspace) Agents(ctx context.Context) ([]string, error) {
	ids, err := ws.refNames(ctx, agentRefs)
	if err != nil {
		return nil, err
	}
	out := ids[:0]
	for _, id := range ids {
		if IsID(id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// Configs returns the names of the config branches, sorted.
func (ws *Workspace) Configs(ctx context.Context) ([]string, error) {
	return ws.refNames(ctx, configRefs)
}

// hasAgent reports whether agent id has a branch.
func (ws *Workspace) hasAgent(ctx context.Context, id string) (bool, error) {
	if !IsID(id) {
		return false, nil
	}
	_, err := ws.git.run(ctx, "", nil, "rev-parse", "--verify", "-q", agentRefs+id)
	if err == nil {
		return true, nil
	}
	if exitStatus(err) == 1 {
		return false, nil
	}
	return false, err
}

// names reads the `name` file at the tip of every agent branch and
// returns id → name (agents without a name are left out).
func (ws *Workspace) names(ctx context.Context, ids []string) (map[string]string, error) {
	names := map[string]string{}
	if len(ids) == 0 {
		return names, nil
	}
	var in strings.Builder
	for _, id := range ids {
		in.WriteString(agentRefs + id + ":name\n")
	}
	out, err := ws.git.run(ctx, "", strings.NewReader(in.String()), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		nl := strings.IndexByte(string(out), '\n')
		if nl < 0 {
			return nil, fmt.Errorf("git cat-file --batch: short output")
		}
		header := strings.Fields(string(out[:nl]))
		out = out[nl+1:]
		if len(header) != 3 {
			continue // "<ref>:name missing"
		}
		var size int
		if _, err := fmt.Sscan(header[2], &size); err != nil || size+1 > len(out) {
			return nil, fmt.Errorf("git cat-file --batch: bad header %q", header)
		}
		if header[1] == "blob" {
			if name := strings.TrimSpace(string(out[:size])); name != "" {
				names[id] = name
			}
		}
		out = out[size+1:]
	}
	return names, nil
}

// NewAgent creates a root agent on config branch config/<config> ("main"
// when empty): a branch agents/<id> at the config's tip, its worktree and
// an empty inbox. It returns the new id.
func (ws *Workspace) NewAgent(ctx context.Context, config string) (string, error) {
	if config == "" {
		config = "main"
	}
	configs, err := ws.Configs(ctx)
	if err != nil {
		return "", err
	}
	if i := sort.SearchStrings(configs, config); i == len(configs) || configs[i] != config {
		return "", &UnknownConfigError{Name: config, Configs: configs}
	}
	unlock, err := ws.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	id, err := ws.mintID(ctx, "")
	if err != nil {
		return "", err
	}
	if _, err := ws.git.run(ctx, "", nil, "worktree", "add", "-q", "-b", "agents/"+id, ws.Worktree(id), configRefs+config); err != nil {
		return "", err
	}
	if err := os.MkdirAll(ws.inbox(id), 0o755); err != nil {
		return "", err
	}
	return id, nil
}

// mintID returns a fresh id under parent ("" for a root) that no branch
// holds yet.
func (ws *Workspace) mintID(ctx context.Context, parent string) (string, error) {
	for range 8 {
		seg, err := mintSegment(ws.now(), ws.random())
		if err != nil {
			return "", err
		}
		id := seg
		if parent != "" {
			id = parent + "-" + seg
		}
		taken, err := ws.hasAgent(ctx, id)
		if err != nil {
			return "", err
		}
		if !taken {
			return id, nil
		}
	}
	return "", fmt.Errorf("could not mint a fresh agent id under %q", parent)
}
