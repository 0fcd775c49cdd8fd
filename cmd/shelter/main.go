// Command shelter runs bash for agents and people on shelter's kernel: a
// hermetic environment, declared wrapped commands and harness tools, and
// one structured result (--json).
//
//	shelter [flags] -c SCRIPT [NAME [ARGS...]]  run bash source; NAME is $0
//	shelter [flags] FILE [ARGS...]              run a script file
//	shelter [flags] < script.sh                 read the script from stdin
//	shelter check [flags] (-c SCRIPT | FILE)
//	shelter tools [flags]
//	shelter workspace init|new|list W ...
//	shelter repl [flags]                        the interactive prompt
//	shelter help [VERB]
//	shelter version
//
// The process exits with the script's exit code; misuse exits 2 with one
// line on stderr. docs/cli.md is the contract, and holds each verb's
// --help output (help.go) verbatim.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"syscall"

	"golang.org/x/term"

	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

func main() {
	spawn.Init() // a confined program starts as this binary, confining itself
	closeInheritedOnExec()
	exitAfterRun = true
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitAfterRun is whether the process ends as soon as run returns, as it
// does under main but not in a test. Then a script's run leaves SIGINT
// and SIGTERM caught, when it caught them, instead of giving them back
// to the runtime: each one given back is a round trip to the runtime's
// signal-mask thread (docs/performance.md, "Cold start").
var exitAfterRun bool

// run is the whole command; it returns the exit code.
func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return runCheck(args[1:], stdout, stderr)
		case "tools":
			return runTools(args[1:], stdout, stderr)
		case "help":
			return runHelp(args[1:], stdout, stderr)
		case "version":
			if wantsHelp(args[1:]) {
				io.WriteString(stdout, usage("version"))
				return 0
			}
			if len(args) > 1 {
				return refuse(stderr, "shelter version", "unexpected argument "+refusal.Quote(args[1]))
			}
			fmt.Fprintf(stdout, "shelter %s %s/%s %s\n", version(), runtime.GOOS, runtime.GOARCH, runtime.Version())
			return 0
		case "doctor":
			return runDoctor(args[1:], stdout, stderr)
		case "workspace":
			return runWorkspace(args[1:], stdout, stderr)
		case "repl":
			return runREPL(args[1:], stdin, stdout, stderr)
		case "serve":
			return runServe(args[1:], stdin, stdout, stderr)
		}
	}
	var o options
	rest, status := o.parse("run", args, stdout, stderr)
	if status >= 0 {
		return status
	}
	if !o.hasScript && len(rest) == 0 && isTerminal(stdin) {
		return startREPL(&o, stdin, stderr)
	}
	script, name, params, input, status := readScript(&o, rest, stdin, stderr)
	if status != 0 {
		return status
	}
	s, status := o.session(stderr)
	if status != 0 {
		return status
	}
	defer s.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var interrupts chan os.Signal
	opts := kernel.RunOptions{Stdin: input, Name: name, Args: params}
	// SIGINT and SIGTERM cancel the call. They are caught only for a call
	// that may wait: one that cannot ends within microseconds, and a
	// signal meanwhile ends shelter as it ends bash, which spares the
	// runtime's signal-mask thread and a round trip to it for each.
	opts.BeforeWait = func() {
		interrupts = make(chan os.Signal, 1)
		signal.Notify(interrupts, os.Interrupt, syscall.SIGTERM)
		go func() {
			if _, ok := <-interrupts; ok {
				cancel()
			}
		}()
	}
	defer func() {
		if interrupts != nil && !exitAfterRun {
			signal.Stop(interrupts)
			close(interrupts)
		}
	}()
	if isTerminal(stdin) {
		// As at a shell's prompt: programs read the keyboard, in the
		// terminal's foreground when shelter may hand it on.
		opts.Stdin = stdin
		if holdsForeground(stdin, stdout) {
			opts.Terminal = stdin
		}
	}
	if !o.hasScript {
		opts.Source = name // FILE's path; empty for a script on stdin
	}
	if !o.json {
		opts.Stdout, opts.Stderr = stdout, stderr
	}
	res, err := s.Run(ctx, script, opts)
	if err != nil {
		fmt.Fprintf(stderr, "shelter: %v\n", err)
		return 1
	}
	switch {
	case o.json:
		writeJSON(stdout, res)
	case res.Rejected:
		// A rejected script streamed nothing: its issues are the output.
		io.WriteString(stderr, res.Stderr)
	default:
		// The script ran; where it used a known gap, say so after it.
		for _, is := range res.Issues {
			if is.Severity == kernel.SeverityNote {
				fmt.Fprintln(stderr, kernel.IssueLine(is))
			}
		}
	}
	return res.ExitCode
}

// readScript finds the script: -c, a file with its arguments, or stdin
// when it is not a terminal. It also decides $0, $1... and the script's
// own input. As in bash, the first word after -c SCRIPT is $0.
func readScript(o *options, rest []string, stdin *os.File, stderr io.Writer) (script, name string, params []string, input io.Reader, status int) {
	switch {
	case o.hasScript:
		if len(rest) > 0 {
			name, params = rest[0], rest[1:]
		}
		return o.script, name, params, pipedInput(stdin), 0
	case len(rest) > 0:
		b, err := os.ReadFile(rest[0])
		if err != nil && isVerb(rest[0]) {
			fmt.Fprintf(stderr, "shelter: '%s' is a verb; write it first: shelter %s [flags]\n", rest[0], rest[0])
			return "", "", nil, nil, 2
		}
		if err != nil {
			fmt.Fprintf(stderr, "shelter: cannot read script: %v\n", unwrapPath(err))
			return "", "", nil, nil, 2
		}
		return string(b), rest[0], rest[1:], pipedInput(stdin), 0
	case stdin == nil:
		return "", "", nil, nil, refuse(stderr, "shelter", "no script", "-c SCRIPT", "FILE", "a script on stdin")
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "shelter: reading the script from stdin: %v\n", err)
		return "", "", nil, nil, 2
	}
	return string(b), "", []string{}, nil, 0
}

func isVerb(word string) bool { return slices.Contains(verbs, word) }

func isTerminal(f *os.File) bool { return f != nil && term.IsTerminal(int(f.Fd())) }

// parse parses verb's flags. A status of -1 means go on; any other is the
// exit code: 0 after printing the help -h or --help asked for, 2 after a
// refusal.
func (o *options) parse(verb string, args []string, stdout, stderr io.Writer) (rest []string, status int) {
	rest, err := o.parseFlags(verb, args)
	if errors.Is(err, errHelp) {
		io.WriteString(stdout, usage(verb))
		return nil, 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, 2
	}
	return rest, -1
}

// pipedInput is the script's input: shelter's stdin when it is a pipe or
// a file, none when it is a terminal or /dev/null.
func pipedInput(stdin *os.File) io.Reader {
	if stdin == nil {
		return nil
	}
	fi, err := stdin.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice != 0 {
		return nil
	}
	return stdin
}

// session builds the kernel and session the running flags describe.
func (o *options) session(stderr io.Writer) (*kernel.Session, int) {
	k, opts, status := o.kernel(stderr)
	if status != 0 {
		return nil, status
	}
	s, err := k.NewSession(opts)
	if err != nil {
		fmt.Fprintf(stderr, "shelter: %v\n", err)
		return nil, 2
	}
	return s, 0
}

// kernel builds the kernel the running flags describe, and the options
// of its sessions.
func (o *options) kernel(stderr io.Writer) (*kernel.Kernel, kernel.SessionOptions, int) {
	var none kernel.SessionOptions
	for _, d := range []struct {
		flag string
		dir  *string
	}{{"--cwd", &o.cwd}, {"--root", &o.root}} {
		if *d.dir == "" {
			continue
		}
		abs, err := existingDir(d.flag, *d.dir)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return nil, none, 2
		}
		*d.dir = abs
	}
	if (o.workspace == "") != (o.agent == "") {
		fmt.Fprintln(stderr, "shelter: --workspace and --agent go together; give both or neither")
		return nil, none, 2
	}
	var extra []kernel.Tool
	var caller kernel.Caller
	if o.workspace != "" {
		tools, c, dir, err := workspaceSession(o.workspace, o.agent)
		if r := (*kernel.Refusal)(nil); errors.As(err, &r) {
			fmt.Fprintln(stderr, r)
			return nil, none, 2
		}
		if err != nil {
			fmt.Fprintf(stderr, "shelter: %v\n", err)
			return nil, none, 2
		}
		extra, caller = tools, c
		if o.cwd == "" {
			o.cwd = dir
		}
		// In the sandbox an agent reaches its own worktree only; the
		// repository, the inboxes and the other worktrees are shelter's.
		if kernel.Profile(o.profile) == kernel.ProfileSandbox {
			if o.root != "" && filepath.Clean(o.root) != dir {
				fmt.Fprintf(stderr, "shelter: --root: a sandbox session of agent %s is confined to its worktree %s; give no --root\n", o.agent, dir)
				return nil, none, 2
			}
			o.root = dir
		}
	}
	tools, err := loadTools(o.tools)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, none, 2
	}
	cfg, err := o.config(tools)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, none, 2
	}
	if o.serving {
		// The server's log is the operator's: how to allow an external
		// an agent was refused goes there, not to the agent.
		cfg.OperatorLog = stderr
	}
	k, err := kernel.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "shelter: %v\n", err)
		return nil, none, 2
	}
	return k, kernel.SessionOptions{Dir: o.cwd, Caller: caller, Tools: extra}, 0
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	var o options
	rest, status := o.parse("check", args, stdout, stderr)
	if status >= 0 {
		return status
	}
	script := o.script
	switch {
	case o.hasScript && len(rest) == 0:
	case !o.hasScript && len(rest) == 1:
		b, err := os.ReadFile(rest[0])
		if err != nil {
			fmt.Fprintf(stderr, "shelter check: cannot read script: %v\n", err)
			return 2
		}
		script = string(b)
	default:
		n := len(rest)
		if o.hasScript {
			n++
		}
		return refuse(stderr, "shelter check", fmt.Sprintf("%d scripts given", n), "-c SCRIPT", "FILE")
	}
	s, status := o.session(stderr)
	if status != 0 {
		return status
	}
	defer s.Close()
	issues, err := s.Check(script)
	if err != nil {
		fmt.Fprintf(stderr, "shelter check: %v\n", err)
		return 1
	}
	ok := true
	for _, is := range issues {
		if is.Severity == kernel.SeverityError {
			ok = false
		}
	}
	if o.json {
		if issues == nil {
			issues = []kernel.Issue{}
		}
		writeJSON(stdout, struct {
			OK     bool           `json:"ok"`
			Issues []kernel.Issue `json:"issues"`
		}{ok, issues})
	} else {
		for _, is := range issues {
			fmt.Fprintln(stderr, kernel.IssueLine(is))
		}
	}
	if !ok {
		return 2
	}
	return 0
}

func runTools(args []string, stdout, stderr io.Writer) int {
	o := options{serve: defaultServeOptions()}
	rest, status := o.parse("tools", args, stdout, stderr)
	if status >= 0 {
		return status
	}
	if len(rest) > 0 {
		return refuse(stderr, "shelter tools", "unexpected argument "+refusal.Quote(rest[0]))
	}
	if o.format != "" {
		return printFormat(&o, stdout, stderr)
	}
	if o.serve.expose != nil {
		fmt.Fprintln(stderr, "shelter tools: --expose goes with --format; without it every tool is listed")
		return 2
	}
	s, status := o.session(stderr)
	if status != 0 {
		return status
	}
	defer s.Close()
	infos := kernel.Describe(s.Tools())
	if o.json {
		writeJSON(stdout, infos)
		return 0
	}
	io.WriteString(stdout, kernel.FormatTools(infos))
	return 0
}

// existingDir is dir made absolute, or a refusal naming flag when it is
// not a directory.
func existingDir(flag, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("shelter: %s: %v", flag, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("shelter: %s: '%s' does not exist; give an existing directory", flag, dir)
	case err != nil:
		return "", fmt.Errorf("shelter: %s: %v", flag, unwrapPath(err))
	case !fi.IsDir():
		return "", fmt.Errorf("shelter: %s: '%s' is not a directory", flag, dir)
	}
	return abs, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("'%s': %v", pe.Path, pe.Err)
	}
	return err
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil && !errors.Is(err, os.ErrClosed) {
		fmt.Fprintf(os.Stderr, "shelter: %v\n", err)
	}
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// refuse prints command's refusal, in the voice of every refusal
// (internal/refusal), and returns its exit status, 2.
func refuse(stderr io.Writer, command, what string, allowed ...string) int {
	fmt.Fprintln(stderr, refusal.Line(command, what, allowed))
	return 2
}
