package builtins_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shelter-sh/shelter/builtins"
	"github.com/shelter-sh/shelter/kernel"
)

// sandbox makes a root holding fruit.txt and a sandbox-profile kernel
// confined to it with tools; the root's path comes back with symbolic
// links resolved, as the kernel's messages name it.
func sandbox(tools []kernel.Tool) (*kernel.Kernel, string) {
	dir, err := os.MkdirTemp("", "shelter-example")
	if err != nil {
		panic(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	os.WriteFile(filepath.Join(root, "fruit.txt"), []byte("pear\napple\npear\nfig\n"), 0o644)
	cfg, _ := kernel.Preset(kernel.ProfileSandbox)
	cfg.Root = root
	cfg.Tools = tools
	k, err := kernel.New(cfg)
	if err != nil {
		panic(err)
	}
	return k, root
}

// An embedder registers the coreutils in a sandbox kernel: the session
// runs cat, sort, uniq and the rest in process, and every file they open
// goes through the call's opener, so nothing outside the root is read.
func ExampleCoreutils() {
	k, root := sandbox(builtins.Coreutils())
	defer os.RemoveAll(root)
	s, err := k.NewSession(kernel.SessionOptions{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	ctx := context.Background()

	res, _ := s.Run(ctx, "sort fruit.txt | uniq -c | sort -rn | head -n 1", kernel.RunOptions{})
	fmt.Print(res.Stdout)
	res, _ = s.Run(ctx, "cat /etc/passwd", kernel.RunOptions{})
	fmt.Print(res.ExitCode, " ", strings.ReplaceAll(res.Stderr, root, "ROOT"))
	// Output:
	//       2 pear
	// 2 cat: /etc/passwd: outside the sandbox root; allowed: paths under ROOT
}

// quiet is an embedder's launcher: `quiet COMMAND [ARG]...` runs the
// command with its standard output discarded and says how it ended. It
// starts the command with Call.Launch, so the guard, the session's tools
// and the external-command policy judge it as they would the command
// alone; Unwrap lets the static pass look through it before anything
// runs.
type quiet struct{}

func (quiet) Name() string        { return "quiet" }
func (quiet) Kind() kernel.Kind   { return kernel.Builtin }
func (quiet) Description() string { return "Run a command with its standard output discarded." }
func (quiet) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"args":{"type":"array","items":{"type":"string"}}}}`)
}

func (quiet) Unwrap(words []kernel.Word) (kernel.Launched, bool) {
	if len(words) < 2 {
		return kernel.Launched{}, false
	}
	return kernel.Launched{Words: words[1:]}, true
}

func (quiet) Run(ctx context.Context, c *kernel.Call) error {
	if len(c.Args) < 2 {
		return &kernel.Refusal{Command: "quiet", What: "missing command", Allowed: []string{"COMMAND [ARG]..."}}
	}
	status, err := c.Launch(ctx, c.Args[1:], kernel.LaunchOptions{Stdin: c.Stdin, Stderr: c.Stderr})
	if err != nil {
		return err // the call ended
	}
	fmt.Fprintf(c.Stdout, "quiet: %s: status %d\n", c.Args[1], status)
	return kernel.ExitStatus(status)
}

// An embedder adds a launcher of its own beside the coreutils and the
// launchers: what it launches is a command like any other, so the
// sandbox's root and its external-command policy hold behind it.
func ExampleLaunchers() {
	tools := append(builtins.Coreutils(), builtins.Launchers()...)
	k, root := sandbox(append(tools, quiet{}))
	defer os.RemoveAll(root)
	s, err := k.NewSession(kernel.SessionOptions{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	ctx := context.Background()

	for _, script := range []string{
		"quiet sort fruit.txt",
		"timeout 5 quiet cat /etc/passwd",
		"quiet curl https://example.com",
	} {
		res, _ := s.Run(ctx, script, kernel.RunOptions{})
		fmt.Print(strings.ReplaceAll(res.Stderr, root, "ROOT"), res.Stdout)
	}
	// Output:
	// quiet: sort: status 0
	// cat: /etc/passwd: outside the sandbox root; allowed: paths under ROOT
	// quiet: cat: status 2
	// shelter: external command 'curl' is not allowed in this session; allowed: the builtins (help lists them)
	// quiet: curl: status 127
}
