package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shelter-sh/shelter/builtins"
	"github.com/shelter-sh/shelter/internal/argv"
	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/spawn"
)

// options are the running flags of docs/cli.md, shared by running, check
// and tools.
type options struct {
	script        string
	hasScript     bool
	json          bool
	profile       string
	env           list
	passEnv       list
	timeout       duration
	outputLimit   size
	cwd           string
	root          string
	tools         list
	allowExternal list
	confine       string
	network       bool
	allowRead     list
	allowWrite    list
	builtins      bool
	workspace     string
	agent         string
	norc          bool
	serve         serveOptions // shelter serve's own flags
	serving       bool         // the options are shelter serve's
	format        string       // shelter tools --format
}

// FlagError refuses a flag's value: "shelter: --timeout: '5' has no unit…".
type FlagError struct {
	Verb string // "shelter", "shelter check"
	Flag string // as documented: "--timeout", "-c"
	Msg  string
}

func (e *FlagError) Error() string { return fmt.Sprintf("%s: %s: %s", e.Verb, e.Flag, e.Msg) }

// flagSpec is one flag as the parse reads it and as help prints it: one
// description serves both.
type flagSpec struct {
	name    string // without dashes
	arg     string // the value's placeholder; "" for a switch
	meaning string
	def     string // the default as help shows it; "" when there is none
	many    bool   // repeatable
	value   func(o *options) value
	verbs   string // the verbs that take it: "run", "check", "tools", space-separated
}

// A value is where a flag's value goes; Set refuses a value with a
// *FlagError. A switch is Set "true" when given alone.
type value interface{ Set(string) error }

const allRunning = "run check tools repl serve"

// flagSpecs are the running flags in the order help lists them.
var flagSpecs = []flagSpec{
	{name: "c", arg: "SCRIPT", meaning: "run SCRIPT, bash source; it ends the flags: the word after it is $0, the rest $1..., even words that look like flags", verbs: "run",
		value: func(o *options) value { return scriptFlag{o} }},
	{name: "c", arg: "SCRIPT", meaning: "check SCRIPT, bash source", verbs: "check",
		value: func(o *options) value { return scriptFlag{o} }},
	{name: "json", meaning: "print the Result as one JSON object on stdout instead of the script's own output", def: "false", verbs: "run",
		value: func(o *options) value { return &boolFlag{o, "--json", &o.json} }},
	{name: "json", meaning: `print {"ok": bool, "issues": [...]} on stdout instead of the issues on stderr`, def: "false", verbs: "check",
		value: func(o *options) value { return &boolFlag{o, "--json", &o.json} }},
	{name: "json", meaning: "print a JSON array of the tools with their schemas", def: "false", verbs: "tools",
		value: func(o *options) value { return &boolFlag{o, "--json", &o.json} }},
	{name: "profile", arg: "NAME", meaning: "preset: host, agent (32K output, 120s timeout) or sandbox (agent, and no programs from PATH)", def: "host", verbs: allRunning,
		value: func(o *options) value { return &stringFlag{&o.profile} }},
	{name: "env", arg: "NAME=VALUE", meaning: "set a variable, exported", many: true, verbs: allRunning,
		value: func(o *options) value { return &o.env }},
	{name: "pass-env", arg: "NAME", meaning: "copy NAME from shelter's own environment, exported", many: true, verbs: allRunning,
		value: func(o *options) value { return &o.passEnv }},
	{name: "timeout", arg: "DURATION", meaning: "end each call after DURATION (500ms, 2m) with status 124; 0 turns the profile's timeout off", def: "the profile's", verbs: allRunning,
		value: func(o *options) value { return &durationFlag{o} }},
	{name: "output-limit", arg: "SIZE", meaning: "the bytes of each stream a Result keeps, K/M/G suffixes (32K), at most 64M: of a longer stream it keeps the first and last halves, and the whole stream goes to a spill file. 0 is no limit of its own, only the 64M cap every stream has, so it keeps as much as 64M. Output streamed as it comes (without --json, at the prompt) is never cut", def: "the profile's: 0 in host, 32K in agent and sandbox", verbs: allRunning,
		value: func(o *options) value { return &sizeFlag{o} }},
	{name: "cwd", arg: "DIR", meaning: "starting working directory", def: "the current one", verbs: allRunning,
		value: func(o *options) value { return &stringFlag{&o.cwd} }},
	{name: "root", arg: "DIR", meaning: "the directory the sandbox profile is confined to; HOME and TMPDIR are in ROOT/.shelter", def: "--cwd", verbs: allRunning,
		value: func(o *options) value { return &stringFlag{&o.root} }},
	{name: "tools", arg: "FILE", meaning: "load wrapped commands and harness tools from a YAML file", many: true, verbs: allRunning,
		value: func(o *options) value { return &o.tools }},
	{name: "allow-external", arg: "NAME", meaning: "with the sandbox profile, let NAME run from PATH", many: true, verbs: allRunning,
		value: func(o *options) value { return &o.allowExternal }},
	{name: "confine", arg: "MODE", meaning: "hold every program the session starts to its root with the operating system (Landlock, no network, docs/sandbox.md): on, off, or best-effort (run what the host cannot fully confine, and say so in every result)", def: "on for sandbox, else off", verbs: allRunning,
		value: func(o *options) value { return &stringFlag{&o.confine} }},
	{name: "network", meaning: "let confined programs use the host's network", def: "false", verbs: allRunning,
		value: func(o *options) value { return &boolFlag{o, "--network", &o.network} }},
	{name: "allow-read", arg: "PATH", meaning: "let confined programs read and execute beneath PATH too", many: true, verbs: allRunning,
		value: func(o *options) value { return &o.allowRead }},
	{name: "allow-write", arg: "PATH", meaning: "let confined programs write beneath PATH too (a shared cache)", many: true, verbs: allRunning,
		value: func(o *options) value { return &o.allowWrite }},
	{name: "builtins", meaning: "run cat, grep, sed, sort, jq and the other coreutils in process (docs/sandbox.md); the sandbox profile always does", def: "false", verbs: allRunning,
		value: func(o *options) value { return &boolFlag{o, "--builtins", &o.builtins} }},
	{name: "workspace", arg: "W", meaning: "the workspace of --agent (docs/workspace.md)", verbs: allRunning,
		value: func(o *options) value { return &stringFlag{&o.workspace} }},
	{name: "agent", arg: "ID", meaning: "run as agent ID of --workspace, in its worktree, with its tools", verbs: allRunning,
		value: func(o *options) value { return &stringFlag{&o.agent} }},
	{name: "norc", meaning: "at the interactive prompt, do not source ~/.config/shelter/rc.sh", def: "false", verbs: "run repl",
		value: func(o *options) value { return &boolFlag{o, "--norc", &o.norc} }},
}

// dashed is a flag's name as documented and as refusals name it.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// verbFlags are the flags verb takes ("run" for running a script).
func verbFlags(verb string) []flagSpec {
	out := make([]flagSpec, 0, len(flagSpecs))
	for _, f := range flagSpecs {
		for rest := f.verbs; rest != ""; {
			var v string
			v, rest, _ = strings.Cut(rest, " ")
			if v == verb {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// verbName is how refusals name the verb: "shelter", "shelter check".
func verbName(verb string) string {
	if verb == "run" {
		return "shelter"
	}
	return "shelter " + verb
}

// verbSet is verb's grammar: Go's flag package's (docs/cli.md), each
// flag of flags its flagSpec's.
func verbSet(verb string, flags []flagSpec) *argv.Set {
	set := &argv.Set{Command: verbName(verb), Syntax: argv.Go, HelpWords: []string{"-h", "--help"}, Flags: make([]*argv.Flag, len(flags))}
	all, names := make([]argv.Flag, len(flags)), make([]string, len(flags))
	for i, f := range flags {
		names[i] = dashed(f.name)
		all[i] = argv.Flag{Names: names[i : i+1 : i+1], Value: f.arg, Bool: f.arg == "", About: f.meaning, Default: f.def, Repeatable: f.many}
		set.Flags[i] = &all[i]
	}
	return set
}

// errHelp is parseFlags' answer to -h and --help.
var errHelp = errors.New("help requested")

// parseFlags parses args for verb into o and returns the rest: the words
// from the first that is no flag on, or after "--". A bad flag is one
// line naming what is allowed; -h or --help is errHelp.
//
// As in bash, -c SCRIPT ends the flags of a run: every word after SCRIPT
// is $0 and the positional parameters, even one that looks like a flag
// (`shelter -c 'echo $1' a --json` prints --json). The other verbs take
// no words after -c SCRIPT, and flags may follow it there.
func (o *options) parseFlags(verb string, args []string) ([]string, error) {
	if o.profile == "" {
		o.profile = string(kernel.ProfileHost)
	}
	flags := verbFlags(verb)
	set := verbSet(verb, flags)
	sc := set.Scan(args)
	for {
		it, ok := sc.Next()
		if !ok {
			return args[len(args):], nil
		}
		switch it.Kind {
		case argv.Operand:
			return args[it.Index:], nil
		case argv.EndOfFlags:
			return args[it.Index+1:], nil
		case argv.HelpAsked:
			return nil, errHelp
		case argv.Refused:
			return nil, it.Err
		}
		f := flags[slices.Index(set.Flags, it.Flag)]
		v := it.Value
		if !it.HasValue {
			v = "true"
		}
		if err := f.value(o).Set(v); err != nil {
			if fe, ok := err.(*FlagError); ok {
				fe.Verb = verbName(verb)
			}
			return nil, err
		}
		if verb == "run" && f.name == "c" {
			return args[sc.Index():], nil
		}
	}
}

// refuse is a flag's refusal of a value; parseFlags names the verb.
func (o *options) refuse(flag, msg string) error {
	return &FlagError{Flag: flag, Msg: msg}
}

type list []string

func (l *list) Set(v string) error { *l = append(*l, v); return nil }

type stringFlag struct{ p *string }

func (s *stringFlag) Set(v string) error { *s.p = v; return nil }

type boolFlag struct {
	o    *options
	name string
	p    *bool
}

func (b *boolFlag) Set(v string) error {
	x, err := strconv.ParseBool(v)
	if err != nil {
		return b.o.refuse(b.name, fmt.Sprintf("'%s' is not a boolean; write %s alone, or %s=false", v, b.name, b.name))
	}
	*b.p = x
	return nil
}

type scriptFlag struct{ o *options }

func (f scriptFlag) Set(v string) error {
	f.o.script, f.o.hasScript = v, true
	return nil
}

// duration is --timeout: set records that it was given, so that 0 can
// turn a profile's timeout off.
type duration struct {
	d   time.Duration
	set bool
}

type durationFlag struct{ o *options }

func (f *durationFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		if _, nerr := strconv.ParseFloat(v, 64); nerr == nil {
			return f.o.refuse("--timeout", fmt.Sprintf("'%s' has no unit; write a Go duration such as %ss, 500ms or 2m (0 for none)", v, v))
		}
		return f.o.refuse("--timeout", fmt.Sprintf("'%s' is not a duration; write a Go duration such as 30s, 500ms or 2m (0 for none)", v))
	}
	if d < 0 {
		return f.o.refuse("--timeout", fmt.Sprintf("'%s' is negative; write 0 for no timeout", v))
	}
	f.o.timeout = duration{d, true}
	return nil
}

// size is --output-limit: a byte count with an optional K, M or G suffix;
// set records that it was given.
type size struct {
	n   int
	set bool
}

type sizeFlag struct{ o *options }

func (f *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return f.o.refuse("--output-limit", err.Error())
	}
	f.o.outputLimit = size{n, true}
	return nil
}

// maxOutputLimit is the largest --output-limit: past spawn's hard cap the
// limit would no longer bound memory.
const maxOutputLimit = spawn.DefaultHardCap

// parseSize reads "32768", "32K", "1M", "0". It refuses what overflows
// and what exceeds maxOutputLimit.
func parseSize(v string) (int, error) {
	mult, num := int64(1), v
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 'K', 'k':
			mult, num = 1<<10, v[:n-1]
		case 'M', 'm':
			mult, num = 1<<20, v[:n-1]
		case 'G', 'g':
			mult, num = 1<<30, v[:n-1]
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || n < 0 || num != strings.TrimSpace(num) {
		return 0, errors.New(refusal.Quote(v) + " is not a byte count; allowed: one such as 32768, 32K or 1M (0 for no limit of its own)")
	}
	if errors.Is(err, strconv.ErrRange) || n > math.MaxInt64/mult || n*mult > maxOutputLimit {
		return 0, errors.New(refusal.Quote(v) + " is more than 64M, the most any stream keeps; allowed: 0 to 64M (0: no limit of its own; the 64M cap still applies)")
	}
	return int(n * mult), nil
}

// config builds the kernel configuration the flags describe.
func (o *options) config(tools []kernel.Tool) (kernel.Config, error) {
	cfg, ok := kernel.Preset(kernel.Profile(o.profile))
	if !ok {
		return cfg, errors.New(refusal.Line("shelter: --profile", "unknown profile "+refusal.Quote(o.profile), profileNames()))
	}
	if o.timeout.set {
		cfg.Timeout = o.timeout.d
	}
	if o.outputLimit.set {
		cfg.OutputLimit = o.outputLimit.n
	}
	if len(o.env) > 0 {
		env := make(map[string]string, len(cfg.Env)+len(o.env))
		for k, v := range cfg.Env {
			env[k] = v
		}
		for _, kv := range o.env {
			name, value, ok := strings.Cut(kv, "=")
			if !ok || name == "" {
				return cfg, errors.New(refusal.Line("shelter: --env", refusal.Quote(kv)+" is not NAME=VALUE", []string{"NAME=VALUE"}))
			}
			env[name] = value
		}
		cfg.Env = env
	}
	cfg.PassEnv = o.passEnv
	if len(o.allowExternal) > 0 {
		if cfg.Profile != kernel.ProfileSandbox {
			return cfg, errors.New(refusal.Line("shelter: --allow-external", "not with --profile "+refusal.Quote(o.profile), []string{"--profile sandbox"}))
		}
		cfg.AllowExternal = o.allowExternal
	}
	if o.confine != "" {
		mode, ok := kernel.ParseConfineMode(o.confine)
		if !ok {
			return cfg, errors.New(refusal.Line("shelter: --confine", "unknown mode "+refusal.Quote(o.confine), []string{"best-effort", "off", "on"}))
		}
		cfg.Confine = mode
	}
	if cfg.Confine == kernel.ConfineOff {
		for _, f := range []struct {
			name string
			set  bool
		}{{"--network", o.network}, {"--allow-read", len(o.allowRead) > 0}, {"--allow-write", len(o.allowWrite) > 0}} {
			if f.set {
				return cfg, errors.New(refusal.Line("shelter: "+f.name, "applies to confined programs only, and --confine is 'off'", []string{"--confine best-effort", "--confine on (the sandbox profile's default)"}))
			}
		}
	}
	cfg.Network = o.network
	var err error
	if cfg.ReadPaths, err = absPaths("--allow-read", o.allowRead); err != nil {
		return cfg, err
	}
	if cfg.WritePaths, err = absPaths("--allow-write", o.allowWrite); err != nil {
		return cfg, err
	}
	// A program an agent runs as root reads no /proc entry of the CLI's,
	// its environment among them. The host profile is a person's own
	// shell, where root keeps CAP_SYS_ADMIN (mount, unshare); serve's
	// programs never do.
	cfg.NoPtrace = o.serving || cfg.Profile != kernel.ProfileHost
	cfg.Root = o.root
	if cfg.Root == "" {
		cfg.Root = o.cwd
	}
	// The launchers, job control and help are shelter's own: without
	// them env, timeout, xargs… are refused, never taken from PATH.
	cfg.Tools = append(builtins.Launchers(), tools...)
	if o.builtins || cfg.Profile == kernel.ProfileSandbox {
		cfg.Tools = withCoreutils(cfg.Tools, cfg.AllowExternal)
	}
	// The CLI is its own process: what a script starts that leaves its
	// process group is reparented to it and ended with the call.
	cfg.Subreaper = subreaper
	// The preset sets it already; the CLI's environment is the user's
	// and stays out of every session's reach, whatever the profile.
	cfg.NonDumpable = true
	return cfg, nil
}

// absPaths makes each path absolute, as the operator meant it from the
// directory shelter was started in; each must exist.
func absPaths(flag string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return nil, errors.New(refusal.Line("shelter: "+flag, refusal.Quote(p)+" does not exist", []string{"existing files and directories"}))
		}
		out = append(out, abs)
	}
	return out, nil
}

// subreaper is whether the CLI makes its process a child subreaper: it is
// its own process (Linux). A test binary that runs the CLI in process
// beside children of its own turns it off, since the subreaper reaps
// every child it did not start whose process group is not its own.
var subreaper = runtime.GOOS == "linux"

// withCoreutils adds the in-process coreutils to the declared tools; a
// declared tool and an allowed external of the same name win.
func withCoreutils(declared []kernel.Tool, allowed []string) []kernel.Tool {
	names := make(map[string]bool, len(declared)+len(allowed))
	for _, t := range declared {
		names[t.Name()] = true
	}
	for _, n := range allowed {
		names[n] = true
	}
	out := slices.Clone(declared)
	for _, t := range builtins.Coreutils() {
		if !names[t.Name()] {
			out = append(out, t)
		}
	}
	return out
}

// profileNames are the profiles' names, for a refusal's pool.
func profileNames() []string {
	var names []string
	for _, p := range kernel.Profiles() {
		names = append(names, string(p))
	}
	return names
}
