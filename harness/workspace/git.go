package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_AUTHOR_NAME=shelter",
		"GIT_AUTHOR_EMAIL=shelter@workspace.invalid",
		"GIT_COMMITTER_NAME=shelter",
		"GIT_COMMITTER_EMAIL=shelter@workspace.invalid",
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

// run runs git with args in dir (the bare repository when dir is empty)
// and returns its stdout. Hooks never run: an agent can write into the
// repository and must not get code run in the operator's name.
func (g *gitRunner) run(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	if dir == "" {
		dir = g.repo
	}
	argv := append([]string{"git", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgSign=false"}, args...)
	var stdout, stderr boundedBuffer
	stdout.limit, stderr.limit = maxGitOutput, maxGitStderr
	g.spawned.Add(1)
	status, err := spawn.Run(ctx, &spawn.Cmd{
		Path:   g.path,
		Args:   argv,
		Env:    g.env,
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
