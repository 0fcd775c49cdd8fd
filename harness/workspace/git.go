package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/shelter-sh/shelter/spawn"
)

// maxGitOutput bounds what one git command may print on stdout; past it the
// command fails rather than fill memory.
const maxGitOutput = 32 << 20

// maxGitStderr bounds the stderr kept for an error message.
const maxGitStderr = 8 << 10

// The author and committer of every commit the workspace makes.
const (
	identityName  = "shelter"
	identityEmail = "shelter@workspace.invalid"
)

// gitRunner runs git for one workspace with a hermetic environment: PATH
// from the host (to find git), HOME at the workspace, no system or global
// configuration, a fixed identity, C locale and literal pathspecs.
type gitRunner struct {
	path string   // the resolved git executable
	env  []string // the complete environment of every git child
	repo string   // the bare repository (GIT_DIR for commands outside a worktree)

	// spawned counts the git processes started, for the benchmarks.
	spawned *atomic.Int64
}

var (
	gitPathOnce sync.Once
	gitPath     string
	gitPathErr  error
)

func lookGit() (string, error) {
	gitPathOnce.Do(func() {
		wd, _ := os.Getwd()
		gitPath, gitPathErr = spawn.LookPath(os.Getenv("PATH"), wd, "git")
	})
	return gitPath, gitPathErr
}

func newGitRunner(dir, repo string) (*gitRunner, error) {
	path, err := lookGit()
	if err != nil {
		return nil, fmt.Errorf("workspace needs git: %w", err)
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		// refs/replace/* could make a forged tree stand in for a config
		// commit's.
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_AUTHOR_NAME=" + identityName,
		"GIT_AUTHOR_EMAIL=" + identityEmail,
		"GIT_COMMITTER_NAME=" + identityName,
		"GIT_COMMITTER_EMAIL=" + identityEmail,
	}
	return &gitRunner{path: path, env: env, repo: repo, spawned: new(atomic.Int64)}, nil
}

// gitError is a git command that exited non-zero.
type gitError struct {
	Args   []string
	Status int
	Stderr string
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Sprintf("git %s: exit status %d: %s", strings.Join(e.Args, " "), e.Status, msg)
}

// protectedConfig is set on the command line of every git process: the
// settings that make git run a program or reach the network, pinned so
// that no file an agent can write decides them. Repository config can
// hold more (a filter, an include); [checkRepo] refuses those before git
// runs.
var protectedConfig = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "core.sshCommand=false",
	"-c", "core.attributesFile=/dev/null",
	"-c", "core.askPass=false",
	"-c", "diff.external=",
	"-c", "commit.gpgSign=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "protocol.allow=never",
}

// run runs git with args in dir (the bare repository when dir is empty)
// and returns its stdout. It first checks that the repository holds only
// the config and info/ files shelter wrote ([checkRepo]), and refuses with
// a [*RepoChangedError] otherwise: an agent can write into the repository
// and must not get code run in the operator's name. Hooks never run.
func (g *gitRunner) run(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	if err := checkRepo(g.repo); err != nil {
		return nil, err
	}
	return g.spawn(ctx, dir, stdin, args...)
}

// spawn runs git without checking the repository: for git init only.
func (g *gitRunner) spawn(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	env := g.env
	if dir == "" {
		// Named, not discovered: discovery would follow a .git planted
		// in repo.git to another repository and its config.
		dir, env = g.repo, append(slices.Clip(g.env), "GIT_DIR="+g.repo)
	}
	argv := slices.Concat([]string{"git", "--no-pager"}, protectedConfig, args)
	var stdout, stderr boundedBuffer
	stdout.limit, stderr.limit = maxGitOutput, maxGitStderr
	g.spawned.Add(1)
	status, err := spawn.Run(ctx, &spawn.Cmd{
		Path:   g.path,
		Args:   argv,
		Env:    env,
		Dir:    dir,
		Stdin:  stdin,
		Stdout: &stdout,
		Stderr: &stderr,
	})
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	if stdout.overflow {
		return nil, fmt.Errorf("git %s: output over %d bytes", strings.Join(args, " "), maxGitOutput)
	}
	if status != 0 {
		return stdout.Bytes(), &gitError{Args: args, Status: status, Stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

// lines runs git and splits its stdout into non-empty lines.
func (g *gitRunner) lines(ctx context.Context, dir string, args ...string) ([]string, error) {
	out, err := g.run(ctx, dir, nil, args...)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// catBlobs returns the content of each object named in specs (such as
// "<commit>:<path>"), all read by one git cat-file --batch. An entry is nil
// when its object is missing or not a blob.
func (g *gitRunner) catBlobs(ctx context.Context, specs []string) ([][]byte, error) {
	blobs := make([][]byte, len(specs))
	if len(specs) == 0 {
		return blobs, nil
	}
	var in strings.Builder
	for _, s := range specs {
		if strings.ContainsAny(s, "\n\r") {
			return nil, fmt.Errorf("git cat-file --batch: object name %q has a line break", s)
		}
		in.WriteString(s + "\n")
	}
	out, err := g.run(ctx, "", strings.NewReader(in.String()), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	for i := range specs {
		header, rest, ok := bytes.Cut(out, []byte("\n"))
		if !ok {
			return nil, errors.New("git cat-file --batch: short output")
		}
		out = rest
		fields := strings.Fields(string(header))
		if len(fields) != 3 {
			continue // "<name> missing" or "<name> ambiguous"
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil || size < 0 || size+1 > len(out) {
			return nil, fmt.Errorf("git cat-file --batch: bad header %q", header)
		}
		if fields[1] == "blob" {
			blobs[i] = out[:size:size]
		}
		out = out[size+1:]
	}
	return blobs, nil
}

// treeEntry is one file of a tree listed by git ls-tree.
type treeEntry struct {
	mode, sha, path string
}

// lsTree lists the files under dir ("" for all) in treeish, recursively.
func (g *gitRunner) lsTree(ctx context.Context, treeish, dir string) ([]treeEntry, error) {
	args := []string{"ls-tree", "-r", "-z", treeish}
	if dir != "" {
		args = append(args, "--", dir)
	}
	out, err := g.run(ctx, "", nil, args...)
	if err != nil {
		return nil, err
	}
	var entries []treeEntry
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		// meta is "<mode> <type> <object>".
		f := strings.Fields(meta)
		if len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree: bad entry %q", rec)
		}
		entries = append(entries, treeEntry{mode: f[0], sha: f[2], path: path})
	}
	return entries, nil
}

// exitStatus returns the status of a gitError, or -1.
func exitStatus(err error) int {
	var ge *gitError
	if errors.As(err, &ge) {
		return ge.Status
	}
	return -1
}

// boundedBuffer keeps up to limit bytes and remembers whether more came.
// It deliberately has no ReadFrom, so io.Copy goes through Write. It is
// written by one goroutine per stream, so it needs no lock.
type boundedBuffer struct {
	buf      bytes.Buffer
	limit    int
	overflow bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.buf.Len(); len(p) > room {
		b.overflow = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) Bytes() []byte  { return b.buf.Bytes() }
func (b *boundedBuffer) String() string { return b.buf.String() }
