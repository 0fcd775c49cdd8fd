package workspace

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

func TestGrantIsTheCallableSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := newWorkspace(t)
	root := newRoot(t, ws)
	out, err := ws.Dispatch(ctx, root, DispatchInput{Role: "compactor", Goal: "summarise"})
	if err != nil {
		t.Fatal(err)
	}
	compactor := out.Handle

	// A later commit on the compactor's branch cannot change its role.
	wt := ws.Worktree(compactor)
	git(t, ws, wt, "commit", "-q", "--allow-empty", "-m", "dispatch: worker ["+compactor+"]")

	for _, tt := range []struct {
		id, role string
		grant    []string
	}{
		{root, "", []string{"dispatch", "load_skill", "message"}},
		{compactor, "compactor", []string{"message"}},
	} {
		if role, err := ws.Role(ctx, tt.id); err != nil || role != tt.role {
			t.Errorf("Role(%s) = %q, %v; want %q", tt.id, role, err, tt.role)
		}
		if g, err := ws.Grant(ctx, tt.id); err != nil || !slices.Equal(g, tt.grant) {
			t.Errorf("Grant(%s) = %q, %v; want %q", tt.id, g, err, tt.grant)
		}
	}

	// The compactor's session: only message among the workspace tools,
	// and a call of another is the kernel's unknown command.
	s := agentSession(t, ws, compactor)
	var listed []string
	for _, tool := range s.Tools() {
		if slices.Contains(toolNames, tool.Name()) {
			listed = append(listed, tool.Name())
		}
	}
	if !slices.Equal(listed, []string{"message"}) {
		t.Errorf("tools lists %q of the workspace tools, want [message]", listed)
	}
	before := snapshot(t, ws)
	for _, script := range []string{"dispatch --role worker --goal x", "load_skill --name notes"} {
		unknown := run(t, s, "nosuchtool --x y")
		res := run(t, s, script)
		if res.ExitCode != unknown.ExitCode || res.ExitCode == 0 || res.Stderr != strings.ReplaceAll(unknown.Stderr, "nosuchtool", strings.Fields(script)[0]) {
			t.Errorf("%s: exit %d, stderr %q; the kernel's unknown command is exit %d, %q", script, res.ExitCode, res.Stderr, unknown.ExitCode, unknown.Stderr)
		}
	}
	if res := run(t, s, "message --agent "+root+" --content done"); res.ExitCode != 0 {
		t.Errorf("message: exit %d, %q", res.ExitCode, res.Stderr)
	}
	after := snapshot(t, ws)
	after.files = slices.DeleteFunc(after.files, func(f string) bool { return f == "/inbox/"+root+"/"+compactor+"-001.md" })
	sameState(t, before, after)

	// Tools, which registers all three, refuses them at the call.
	tools, err := Tools(ws)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(kernel.Config{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := k.NewSession(kernel.SessionOptions{Dir: wt, Caller: kernel.Caller{Agent: compactor}, DiscardSpills: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	res := run(t, ts, "dispatch --role worker --goal x")
	want := `dispatch: not granted to agent '` + compactor + `' by its role 'compactor' in its governing config; allowed: message` + "\n"
	if res.ExitCode != 2 || res.Stderr != want {
		t.Errorf("exit %d, stderr %q\nwant %q", res.ExitCode, res.Stderr, want)
	}
}
