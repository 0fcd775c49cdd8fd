package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/shelter-sh/shelter/kernel"
)

// greet is a minimal tool: a Go function an agent calls from its shell.
type greet struct{}

func (greet) Name() string        { return "greet" }
func (greet) Kind() kernel.Kind   { return kernel.Builtin }
func (greet) Description() string { return "Greet someone by name." }
func (greet) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"args":{"type":"array","items":{"type":"string"}}}}`)
}
func (greet) Run(_ context.Context, c *kernel.Call) error {
	if len(c.Args) != 2 {
		return &kernel.Refusal{Command: "greet", What: fmt.Sprintf("%d names given", len(c.Args)-1), Allowed: []string{"one name"}}
	}
	fmt.Fprintf(c.Stdout, "hello, %s\n", c.Args[1])
	return nil
}

// An embedder builds a kernel from a profile, opens a session and runs
// scripts in it; state persists from one call to the next.
func Example() {
	cfg, _ := kernel.Preset(kernel.ProfileAgent)
	cfg.Tools = []kernel.Tool{greet{}}
	k, err := kernel.New(cfg)
	if err != nil {
		panic(err)
	}
	s, err := k.NewSession(kernel.SessionOptions{Dir: os.TempDir()})
	if err != nil {
		panic(err)
	}
	defer s.Close()

	ctx := context.Background()
	s.Run(ctx, "name=world; cd /", kernel.RunOptions{})
	res, _ := s.Run(ctx, `greet "$name" | tr a-z A-Z; pwd`, kernel.RunOptions{})
	fmt.Printf("exit %d, cwd %s\n%s", res.ExitCode, res.Cwd, res.Stdout)

	res, _ = s.Run(ctx, "echo 'unterminated", kernel.RunOptions{})
	fmt.Println(res.ExitCode, res.Rejected, res.Issues[0].Line, res.Issues[0].Col)
	// Output:
	// exit 0, cwd /
	// HELLO, WORLD
	// /
	// 2 true 1 6
}

// RunArgv runs one command from literal words, with no shell parsing.
func ExampleSession_RunArgv() {
	k, _ := kernel.New(kernel.Config{})
	s, _ := k.NewSession(kernel.SessionOptions{Dir: os.TempDir()})
	defer s.Close()
	res, _ := s.RunArgv(context.Background(), []string{"echo", "$(not expanded)", "; not a list"}, kernel.RunOptions{})
	fmt.Print(res.Stdout)
	// Output: $(not expanded) ; not a list
}

// An embedder's launcher runs its command with Call.Launch, through the
// session's own dispatch: here `retry N COMMAND` (retry, in this
// package's tests, is some fifty lines). Its Unwrap lets the guard look
// through it before anything runs; the external policy judges what it
// launches.
func ExampleCall_Launch() {
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root = os.TempDir()
	calls := 0
	cfg.Tools = []kernel.Tool{retry{}, flaky{&calls}, logs{}}
	k, err := kernel.New(cfg)
	if err != nil {
		panic(err)
	}
	s, _ := k.NewSession(kernel.SessionOptions{})
	defer s.Close()
	ctx := context.Background()

	res, _ := s.Run(ctx, "retry 5 flaky", kernel.RunOptions{})
	fmt.Printf("%d after %d calls\n%s", res.ExitCode, calls, res.Stderr)
	res, _ = s.Run(ctx, "retry 3 journalctl -u nginx", kernel.RunOptions{})
	fmt.Print(res.ExitCode, " ", res.Stderr)
	res, _ = s.Run(ctx, "retry 3 curl https://example.com", kernel.RunOptions{})
	fmt.Print(res.ExitCode, " ", res.Stderr)
	// Output:
	// 0 after 3 calls
	// retry: attempt 1 failed with status 1
	// retry: attempt 2 failed with status 1
	// 2 shelter: 'retry 3 journalctl -u nginx' is done with the tool 'logs' here (Read a unit's journal.); call logs instead — nothing ran
	// 127 shelter: external command 'curl' is not allowed in this session; allowed: logs and the shell's builtins
}
