package workspace_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/shelter-sh/shelter/harness/workspace"
	"github.com/shelter-sh/shelter/kernel"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)

	ws, err := workspace.Init(ctx, filepath.Join(dir, "w"))
	if err != nil {
		fmt.Println(err)
		return
	}
	// A fixed clock and random source make the ids reproducible.
	ws.Now = func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	ws.Rand = bytes.NewReader(bytes.Repeat([]byte{0xab, 0xcd, 0x01, 0x23, 0x45, 0x67, 0x89, 0xef}, 4))

	root, _ := ws.NewAgent(ctx, "")
	fmt.Println("root:", root)

	// The root agent's shell: a session in its worktree, with the
	// workspace tools and the root as caller.
	tools, caller, worktree, _ := ws.Session(ctx, root)
	k, _ := kernel.New(kernel.Config{})
	s, _ := k.NewSession(kernel.SessionOptions{Dir: worktree, Caller: caller, Tools: tools})
	defer s.Close()
	res, _ := s.Run(ctx, `dispatch --role worker --goal 'Write a haiku' --name poet`, kernel.RunOptions{})
	fmt.Print(res.Stdout)
	res, _ = s.Run(ctx, `dispatch --role ghost --goal x`, kernel.RunOptions{})
	fmt.Print(res.ExitCode, " ", res.Stderr)

	agents, _ := ws.List(ctx)
	for _, a := range agents {
		fmt.Printf("%s role=%q name=%q inbox=%d\n", a.ID, a.Role, a.Name, a.Inbox)
	}
	// Output:
	// root: 20260301T120000Z-abcd0123
	// {"status":"in_progress","handle":"20260301T120000Z-abcd0123-20260301T120000Z-456789ef"}
	// 2 dispatch: role 'ghost' is not defined in the providers.yaml governing agent '20260301T120000Z-abcd0123'; allowed: compactor, worker
	// 20260301T120000Z-abcd0123 role="" name="" inbox=0
	// 20260301T120000Z-abcd0123-20260301T120000Z-456789ef role="worker" name="poet" inbox=1
}

func ExampleWorkspace_Message() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	ws, _ := workspace.Init(ctx, filepath.Join(dir, "w"))
	root, _ := ws.NewAgent(ctx, "")

	out, err := ws.Message(ctx, "", workspace.MessageInput{Agent: root, Content: "hello"})
	fmt.Println(out.Status, err)
	_, err = ws.Message(ctx, "", workspace.MessageInput{Agent: "nosuch", Content: "hello"})
	fmt.Println(err)
	// Output:
	// deposited <nil>
	// workspace: no agent 'nosuch' in this workspace; allowed: a name an agent wears, an agent's id
}
