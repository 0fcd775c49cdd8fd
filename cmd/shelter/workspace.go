package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/shelter-sh/shelter/harness/workspace"
	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel"
)

// workspaceConfig and workspaceJSON are the flags of workspace new and
// workspace list.
var (
	workspaceConfig = &argv.Flag{Names: []string{"--config"}, Value: "NAME", About: "new: the config branch config/NAME the agent runs on", Default: "main"}
	workspaceJSON   = &argv.Flag{Names: []string{"--json"}, About: "list: print the agents as one JSON array", Default: "false"}
)

// workspaceSet is the grammar of workspace SUB: flags among the words,
// each only as written.
func workspaceSet(sub string, flags ...*argv.Flag) *argv.Set {
	return &argv.Set{Command: strings.TrimSpace("shelter workspace " + sub), Syntax: argv.Exact, Interleaved: true, Flags: flags, HelpWords: []string{"-h", "--help"}}
}

const workspaceSynopses = `usage:
  shelter workspace init W                 create W with a default config/main
  shelter workspace new W [--config NAME]  create a root agent; print its id
  shelter workspace list W [--json]        agents with role, name, parent, inbox count

A workspace is a directory with a bare git repository of configs and
agents (docs/workspace.md). Misuse exits 2 with one line on stderr.
`

// workspaceUsage is shelter workspace's help.
func workspaceUsage() string {
	return workspaceSynopses + "\n" + workspaceSet("", workspaceConfig, workspaceJSON).Help()
}

// workspaceSynopsis is a subcommand's synopsis, for usage refusals.
func workspaceSynopsis(sub string) string {
	switch sub {
	case "init":
		return "workspace init W"
	case "new":
		return "workspace new W [--config NAME]"
	case "list":
		return "workspace list W [--json]"
	}
	return ""
}

// runWorkspace runs `shelter workspace ARGS...` and returns the exit code.
func runWorkspace(args []string, stdout, stderr io.Writer) int {
	subcommands := []string{"init", "list", "new"}
	if len(args) == 0 {
		return refuse(stderr, "shelter workspace", "missing subcommand", subcommands...)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sub, rest := args[0], args[1:]
	if slices.ContainsFunc(rest, func(a string) bool { return a == "-h" || a == "--help" }) {
		sub = "--help" // shelter workspace new --help
	}
	switch sub {
	case "-h", "--help", "help":
		io.WriteString(stdout, workspaceUsage())
		return 0
	case "init":
		return workspaceInit(ctx, rest, stdout, stderr)
	case "new":
		return workspaceNew(ctx, rest, stdout, stderr)
	case "list":
		return workspaceList(ctx, rest, stdout, stderr)
	}
	return refuse(stderr, "shelter workspace", "unknown subcommand "+refusal.Quote(sub), subcommands...)
}

// workspaceArgs parses `W [flags]` for one subcommand: exactly one
// positional, and flags; it returns each flag given with its value
// ("true" for a switch).
func workspaceArgs(sub string, args []string, flags []*argv.Flag, stderr io.Writer) (dir string, values map[*argv.Flag]string, ok bool) {
	values = map[*argv.Flag]string{}
	var positional []string
	sc := workspaceSet(sub, flags...).Scan(args)
	for {
		it, more := sc.Next()
		if !more {
			break
		}
		switch it.Kind {
		case argv.Operand:
			positional = append(positional, it.Word)
		case argv.FlagGiven:
			values[it.Flag] = "true"
			if it.HasValue {
				values[it.Flag] = it.Value
			}
		case argv.Refused:
			fmt.Fprintln(stderr, it.Err)
			return "", nil, false
		}
	}
	if len(positional) != 1 {
		refuse(stderr, "shelter workspace "+sub, fmt.Sprintf("%d workspace directories given", len(positional)), "shelter "+workspaceSynopsis(sub))
		return "", nil, false
	}
	return positional[0], values, true
}

// workspaceFailure prints err for subcommand sub: a refusal exits 2, any
// other failure 1.
func workspaceFailure(sub string, err error, stderr io.Writer) int {
	if r, ok := workspace.AsRefusal("shelter workspace "+sub, err); ok {
		fmt.Fprintln(stderr, r)
		return 2
	}
	fmt.Fprintf(stderr, "shelter workspace %s: %v\n", sub, err)
	return 1
}

func workspaceInit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	dir, _, ok := workspaceArgs("init", args, nil, stderr)
	if !ok {
		return 2
	}
	if _, err := workspace.Init(ctx, dir); err != nil {
		return workspaceFailure("init", err, stderr)
	}
	return 0
}

func workspaceNew(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	dir, flags, ok := workspaceArgs("new", args, []*argv.Flag{workspaceConfig}, stderr)
	if !ok {
		return 2
	}
	ws, err := workspace.Open(dir)
	if err != nil {
		return workspaceFailure("new", err, stderr)
	}
	id, err := ws.NewAgent(ctx, flags[workspaceConfig])
	if err != nil {
		return workspaceFailure("new", err, stderr)
	}
	fmt.Fprintln(stdout, id)
	return 0
}

func workspaceList(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	dir, flags, ok := workspaceArgs("list", args, []*argv.Flag{workspaceJSON}, stderr)
	if !ok {
		return 2
	}
	ws, err := workspace.Open(dir)
	if err != nil {
		return workspaceFailure("list", err, stderr)
	}
	agents, err := ws.List(ctx)
	if err != nil {
		return workspaceFailure("list", err, stderr)
	}
	if flags[workspaceJSON] != "" {
		b, err := json.Marshal(agents)
		if err != nil {
			return workspaceFailure("list", err, stderr)
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tROLE\tNAME\tPARENT\tINBOX")
	for _, a := range agents {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", a.ID, dash(a.Role), dash(a.Name), dash(a.Parent), a.Inbox)
	}
	tw.Flush()
	return 0
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// workspaceSession returns what a session of agent id in workspace w needs:
// its tools, its caller identity and its working directory. A refusal is
// a *kernel.Refusal of the flag at fault.
func workspaceSession(w, id string) (tools []kernel.Tool, caller kernel.Caller, dir string, err error) {
	ws, err := workspace.Open(w)
	if err != nil {
		if r, ok := workspace.AsRefusal("shelter --workspace", err); ok {
			return nil, kernel.Caller{}, "", r
		}
		return nil, kernel.Caller{}, "", fmt.Errorf("--workspace: %w", err)
	}
	ctx := context.Background()
	tools, caller, dir, err = ws.Session(ctx, id)
	var unknown *workspace.UnknownAgentError
	if errors.As(err, &unknown) {
		ids, lerr := ws.Agents(ctx)
		if lerr != nil {
			return nil, kernel.Caller{}, "", lerr
		}
		return nil, kernel.Caller{}, "", &kernel.Refusal{Command: "shelter --agent", What: "no agent " + kernel.Quote(id) + " in workspace " + w, Allowed: ids}
	}
	if r, ok := workspace.AsRefusal("shelter --agent", err); ok {
		return nil, kernel.Caller{}, "", r
	}
	return tools, caller, dir, err
}
