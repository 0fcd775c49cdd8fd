package workspace

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// agentSession opens a kernel session for agent id, as an embedder does.
func agentSession(t *testing.T, ws *Workspace, id string) *kernel.Session {
	t.Helper()
	tools, caller, dir, err := ws.Session(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(kernel.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: dir, Caller: caller, Tools: tools, DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func run(t *testing.T, s *kernel.Session, script string) kernel.Result {
	t.Helper()
	res, err := s.Run(context.Background(), script, kernel.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestToolsThroughKernelSession(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	s := agentSession(t, ws, root)

	res := run(t, s, `dispatch --role worker --goal 'x' --name scout`)
	m := regexp.MustCompile(`^\{"status":"in_progress","handle":"(` + root + `-[0-9TZ]+-[0-9a-f]{8})"\}\n$`).FindStringSubmatch(res.Stdout)
	if res.ExitCode != 0 || m == nil {
		t.Fatalf("dispatch: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	child := m[1]
	if got := strings.TrimSpace(res.Stdout); string(res.Data) != got {
		t.Errorf("data %s, want %s", res.Data, got)
	}
	if res.Cwd != ws.Worktree(root) {
		t.Errorf("cwd %s, want the root's worktree", res.Cwd)
	}
	if goal, _ := os.ReadFile(filepath.Join(ws.Worktree(child), "goal.md")); string(goal) != "x" {
		t.Errorf("goal.md = %q", goal)
	}

	// A refusal: one line, status 2, nothing created.
	before := snapshot(t, ws)
	res = run(t, s, `dispatch --role ghost --goal 'x'`)
	want := `dispatch: role 'ghost' is not defined in the providers.yaml governing agent '` + root + `'; allowed: compactor, worker` + "\n"
	if res.ExitCode != 2 || res.Stderr != want || res.Stdout != "" {
		t.Errorf("exit %d, stderr %q\nwant %q", res.ExitCode, res.Stderr, want)
	}
	sameState(t, before, snapshot(t, ws))

	// message: the sender is the session's caller; input cannot name one.
	res = run(t, s, `message --agent scout --content 'hello'`)
	if res.ExitCode != 0 || res.Stdout != `{"status":"deposited"}`+"\n" {
		t.Fatalf("message: exit %d, %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if got := inboxNames(t, ws, child); !slices.Equal(got, []string{root + "-001.md", root + "-002.md"}) {
		t.Errorf("inbox %q", got)
	}
	before = snapshot(t, ws)
	for _, script := range []string{
		`message --agent scout --content hi --from user`,
		`message --json '{"agent":"scout","content":"hi","from":"user"}'`,
		"message <<'EOF'\n{\"agent\":\"scout\",\"content\":\"hi\",\"sender\":\"user\"}\nEOF",
	} {
		if res := run(t, s, script); res.ExitCode != 2 {
			t.Errorf("%s: exit %d, stderr %q", script, res.ExitCode, res.Stderr)
		}
	}
	sameState(t, before, snapshot(t, ws))

	// The child's own session speaks as the child.
	cs := agentSession(t, ws, child)
	if res := run(t, cs, `message --agent `+root+` --content 'done'`); res.ExitCode != 0 {
		t.Fatalf("child's message: %q", res.Stderr)
	}
	if got := inboxNames(t, ws, root); !slices.Equal(got, []string{child + "-001.md"}) {
		t.Errorf("root's inbox %q", got)
	}

	// load_skill
	os.MkdirAll(filepath.Join(ws.Dir, "skills", "notes"), 0o755)
	os.WriteFile(filepath.Join(ws.Dir, "skills", "notes", "SKILL.md"), []byte("---\nname: notes\n---\n"), 0o644)
	res = run(t, cs, `load_skill --name notes && cat skills/notes/SKILL.md`)
	if res.ExitCode != 0 || res.Stdout != `{"status":"loaded","path":"skills/notes"}`+"\n---\nname: notes\n---\n" {
		t.Errorf("load_skill: exit %d, %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(t, cs, `load_skill --name notes`)
	if res.Stdout != `{"status":"already_loaded","path":"skills/notes"}`+"\n" {
		t.Errorf("second load_skill: %q %q", res.Stdout, res.Stderr)
	}
	res = run(t, cs, `load_skill --name ../notes`)
	if want := `load_skill: skill name '../notes' is not a single path component; allowed: one directory of the pool` + "\n"; res.ExitCode != 2 || res.Stderr != want {
		t.Errorf("exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
}

func TestMessageWithoutCallerIsFromUser(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	tools, err := Tools(ws)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(kernel.Config{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if res := run(t, s, `message --agent `+root+` --content hi`); res.ExitCode != 0 {
		t.Fatalf("exit %d: %q", res.ExitCode, res.Stderr)
	}
	if got := inboxNames(t, ws, root); !slices.Equal(got, []string{"user-001.md"}) {
		t.Errorf("inbox %q", got)
	}
	res := run(t, s, `dispatch --role worker --goal g`)
	if want := "dispatch: no calling agent; allowed: a session started with --workspace W --agent ID\n"; res.ExitCode != 2 || res.Stderr != want {
		t.Errorf("exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
}
