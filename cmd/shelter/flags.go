package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shelter-sh/shelter/kernel"
)

// options are the running flags of spec/cli.md, shared by running, check
// and tools.
type options struct {
	script        string
	hasScript     bool
	json          bool
	profile       string
	env           list
	passEnv       list
	timeout       time.Duration
	outputLimit   size
	cwd           string
	root          string
	tools         list
	allowExternal list
	workspace     string
	agent         string
}

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

// size is a byte count with optional K, M or G suffix; set records that
// the flag was given.
type size struct {
	n   int
	set bool
}

func (s *size) String() string { return strconv.Itoa(s.n) }
func (s *size) Set(v string) error {
	mult := 1
	num := v
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
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return fmt.Errorf("want a byte count such as 32768, 32K or 1M")
	}
	s.n, s.set = n*mult, true
	return nil
}

type scriptFlag struct{ o *options }

func (f scriptFlag) String() string { return "" }
func (f scriptFlag) Set(v string) error {
	f.o.script, f.o.hasScript = v, true
	return nil
}

// flagSet declares the running flags on a new FlagSet for verb ("" for
// running a script).
func (o *options) flagSet(verb string) *flag.FlagSet {
	fs := flag.NewFlagSet(strings.TrimSpace("shelter "+verb), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if verb == "" || verb == "check" {
		fs.Var(scriptFlag{o}, "c", "run `SCRIPT` (bash source)")
	}
	fs.BoolVar(&o.json, "json", false, "print the result as one JSON object")
	fs.StringVar(&o.profile, "profile", "host", "preset: host, agent or sandbox")
	fs.Var(&o.env, "env", "set `NAME=VALUE`, exported; repeatable")
	fs.Var(&o.passEnv, "pass-env", "copy `NAME` from shelter's environment; repeatable")
	fs.DurationVar(&o.timeout, "timeout", 0, "end each call after `DURATION` with 124")
	fs.Var(&o.outputLimit, "output-limit", "per-stream limit in bytes, K/M suffixes; 0 = none")
	fs.StringVar(&o.cwd, "cwd", "", "starting working `DIR`")
	fs.StringVar(&o.root, "root", "", "the `DIR` the sandbox profile is confined to (default --cwd)")
	fs.Var(&o.tools, "tools", "load wrapped commands and harness tools from `FILE`; repeatable")
	fs.Var(&o.allowExternal, "allow-external", "with the sandbox profile, let `NAME` run from PATH; repeatable")
	fs.StringVar(&o.workspace, "workspace", "", "the workspace `W` of --agent")
	fs.StringVar(&o.agent, "agent", "", "run as agent `ID` of --workspace, in its worktree")
	return fs
}

// parseFlags parses args into o and returns the rest. A bad flag is one
// line naming what is allowed.
func (o *options) parseFlags(verb string, args []string) ([]string, error) {
	fs := o.flagSet(verb)
	if err := fs.Parse(args); err != nil {
		return nil, flagError(fs, err)
	}
	return fs.Args(), nil
}

func flagError(fs *flag.FlagSet, err error) error {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		prefix := "--"
		if len(f.Name) == 1 {
			prefix = "-"
		}
		names = append(names, prefix+f.Name)
	})
	sort.Strings(names)
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if len(name) > 1 {
			name = "--" + name
		} else {
			name = "-" + name
		}
		return fmt.Errorf("%s: unknown flag '%s'; allowed: %s", fs.Name(), name, strings.Join(names, ", "))
	}
	return fmt.Errorf("%s: %s", fs.Name(), msg)
}

// config builds the kernel configuration the flags describe.
func (o *options) config(tools []kernel.Tool) (kernel.Config, error) {
	cfg, ok := kernel.Preset(kernel.Profile(o.profile))
	if !ok {
		return cfg, fmt.Errorf("shelter: unknown profile '%s'; allowed: agent, host, sandbox", o.profile)
	}
	if o.timeout < 0 {
		return cfg, fmt.Errorf("shelter: --timeout must not be negative; got %s", o.timeout)
	}
	if o.timeout > 0 {
		cfg.Timeout = o.timeout
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
				return cfg, fmt.Errorf("shelter: --env wants NAME=VALUE; got '%s'", kv)
			}
			env[name] = value
		}
		cfg.Env = env
	}
	cfg.PassEnv = o.passEnv
	if len(o.allowExternal) > 0 {
		if cfg.Profile != kernel.ProfileSandbox {
			return cfg, fmt.Errorf("shelter: --allow-external applies to the sandbox profile only; got --profile %s", o.profile)
		}
		cfg.AllowExternal = o.allowExternal
	}
	cfg.Root = o.root
	if cfg.Root == "" {
		cfg.Root = o.cwd
	}
	cfg.Tools = tools
	return cfg, nil
}
