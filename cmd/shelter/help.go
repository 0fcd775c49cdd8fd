package main

import (
	"io"
	"sync"

	"github.com/shelter-sh/shelter/internal/refusal"
)

// verbs are the words `shelter VERB` dispatches on, sorted; a script file
// of one of these names runs as ./NAME.
var verbs = []string{"check", "doctor", "help", "repl", "serve", "tools", "version", "workspace"}

// synopses are each verb's usage lines, before its flags; the map is
// built on first use, not at start.
var synopses = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"run": `usage:
  shelter [flags] -c SCRIPT [NAME [ARGS...]]
                                 run bash source; as in bash, NAME is $0
                                 (default "shelter") and ARGS are $1...;
                                 words after SCRIPT are never shelter's
                                 flags: give those before -c
  shelter [flags] FILE [ARGS...]  run a script file; $0 is FILE, ARGS $1...
  shelter [flags] < script.sh     read the script from stdin (not a terminal)
  shelter [flags]                 stdin is a terminal: the interactive prompt
  shelter VERB ...                a verb below; shelter help VERB for its usage

The process exits with the script's exit code, with --json too. Misuse
(a bad flag, an unreadable --tools file) exits 2 with one line on stderr,
and nothing runs. A script file named like a verb runs as ./NAME.

verbs:
  check      validate a script and run nothing
  doctor     list which protections this host lets shelter enforce
  repl       the interactive prompt, as shelter at a terminal
  serve      an MCP server on stdio or streamable HTTP
  tools      list every command a session knows, with its schema
  workspace  agent workspaces on git: init, new, list
  help       print the usage of shelter or of a verb
  version    print shelter's version
`,
		"check": `usage:
  shelter check [flags] (-c SCRIPT | FILE)

Validate a script as a run would, and run nothing. Issues print on
stderr as a refused run prints them: shelter: line LINE:COL: MESSAGE, a
warning as shelter: line LINE:COL: warning: MESSAGE, a known gap as
shelter: note: line LINE:COL: MESSAGE, and a declaration's or the guard's
refusal as its own line; with --json, {"ok": bool, "issues": [...]} on
stdout. Exits 0 when there is no error, 2 otherwise.
`,
		"tools": `usage:
  shelter tools [flags]

List every command a session with these flags knows: the declared ones
(wrapped commands, harness tools) first, then shelter's builtins. With
--json, a JSON array of {"name", "kind", "description", "input_schema"},
and "output_schema" and "annotations" for the tools that declare them.
With --format, the tools shelter serve on stdio lists with the same
flags, as an API takes them (--expose chooses the families).
`,
		"help": `usage:
  shelter help [VERB]

Print the usage of shelter, or of VERB (check, doctor, help, repl, serve,
tools, version, workspace), on stdout. shelter -h, shelter --help and shelter VERB --help
print the same.
`,
		"version": `usage:
  shelter version

Print shelter's version, the platform and the Go version it was built with.
`,
		"doctor": `usage:
  shelter doctor

List which protections of --confine this host enforces, one line each:
files, the network, signals and abstract sockets, privileges (the
operating system's side of docs/sandbox.md). Exits 0 when every one
holds, 1 when --confine on would refuse to start programs here (then
--confine best-effort runs them, and says what is missing in every
result).
`,
		"workspace": workspaceUsage(),
		"repl":      replUsage,
		"serve":     serveUsage,
	}
})

// usage is the help of verb ("run" for running a script): its synopsis
// and every flag with its meaning and default.
func usage(verb string) string {
	flags := verbFlags(verb)
	if len(flags) == 0 {
		return synopses()[verb]
	}
	return synopses()[verb] + "\n" + verbSet(verb, flags).Help()
}

// runHelp is `shelter help [VERB]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		io.WriteString(stdout, usage("run"))
		return 0
	case len(args) > 1:
		return refuse(stderr, "shelter help", "unexpected argument "+refusal.Quote(args[1])+": give one verb", verbs...)
	case args[0] == "-h" || args[0] == "--help":
		io.WriteString(stdout, usage("help"))
		return 0
	}
	if _, ok := synopses()[args[0]]; !ok || args[0] == "run" {
		return refuse(stderr, "shelter help", "unknown verb "+refusal.Quote(args[0]), verbs...)
	}
	io.WriteString(stdout, usage(args[0]))
	return 0
}

// wantsHelp reports whether args, the words after a verb without flags
// of its own, ask for its help.
func wantsHelp(args []string) bool {
	return len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help")
}
