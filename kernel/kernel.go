package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/shelter-sh/shelter/kernel/internal/mvdanpriv"
	"github.com/shelter-sh/shelter/kernel/internal/static"
	"github.com/shelter-sh/shelter/spawn"
)

// Kernel is an immutable configuration and tool registry shared by many
// sessions. It is safe for concurrent use.
type Kernel struct {
	cfg   Config
	tools map[string]Tool
	names []string // sorted tool names
	guard *static.Guard
	// allowed holds what each of Config.AllowExternal resolved to in the
	// kernel's own PATH when it was built; a name PATH did not find is
	// absent.
	allowed map[string]string
	// support is what the host enforces of Config.Confine, probed once.
	support spawn.Support
	// holdRead is what every session's programs may read (the system's
	// and Config.ReadPaths), shared by the sessions' holds; writePaths is
	// Config.WritePaths. Both canonical.
	holdRead, writePaths []string
	// logMu keeps the lines of Config.OperatorLog whole.
	logMu sync.Mutex
	// env is the latest session's shared starting variables (shareEnv).
	envMu sync.Mutex
	env   map[string]string
}

// New builds a kernel from cfg. It fails when two tools share a name or a
// tool's name is empty, and when the mvdan.cc/sh/v3 built in keeps its
// state otherwise than shelter reads it (docs/mvdan.md, "Private state").
//
// Two fields change the embedder's whole process, for good, and New
// applies them only when set: [Config.Subreaper] makes it a child
// subreaper (orphaned descendants are reparented to it and reaped by
// shelter), and [Config.NonDumpable] makes it non-dumpable (its /proc
// entries belong to root; no core file). Every [Preset] sets
// NonDumpable; none sets Subreaper. Nothing else New does reaches
// beyond the kernel.
func New(cfg Config) (*Kernel, error) {
	if err := mvdanpriv.Check(); err != nil {
		return nil, err
	}
	cfg = cfg.clone()
	if cfg.Profile == "" {
		cfg.Profile = ProfileHost
	}
	if _, ok := Preset(cfg.Profile); !ok {
		return nil, fmt.Errorf("unknown profile %q; allowed: %s", cfg.Profile, profileNames())
	}
	if cfg.Subreaper {
		if err := spawn.EnableSubreaper(); err != nil {
			return nil, fmt.Errorf("subreaper: %w", err)
		}
	}
	if cfg.LookupEnv == nil {
		cfg.LookupEnv = os.LookupEnv
	}
	k := &Kernel{cfg: cfg, allowed: resolveAllowed(cfg)}
	if cfg.Confine != ConfineOff {
		k.support = probeConfinement()
		var err error
		readPaths, err := canonicalPaths("ReadPaths", cfg.ReadPaths)
		if err != nil {
			return nil, err
		}
		k.holdRead = slices.Concat(spawn.SystemRead(), readPaths)
		if k.writePaths, err = canonicalPaths("WritePaths", cfg.WritePaths); err != nil {
			return nil, err
		}
	}
	if cfg.NonDumpable {
		nonDumpable()
	}
	tools, err := registry(nil, cfg.Tools)
	if err != nil {
		return nil, err
	}
	k.tools = tools
	k.names = sortedNames(tools)
	k.guard = newGuard(tools)
	return k, nil
}

// Config returns a copy of the configuration the kernel was built from;
// changing it changes nothing of the kernel's.
func (k *Kernel) Config() Config { return k.cfg.clone() }

// Tools returns the kernel's tools sorted by name.
func (k *Kernel) Tools() []Tool {
	out := make([]Tool, len(k.names))
	for i, n := range k.names {
		out[i] = k.tools[n]
	}
	return out
}

// Tool returns the tool of that name.
func (k *Kernel) Tool(name string) (Tool, bool) {
	t, ok := k.tools[name]
	return t, ok
}

func registry(base map[string]Tool, add []Tool) (map[string]Tool, error) {
	out := make(map[string]Tool, len(base)+len(add))
	for n, t := range base {
		out[n] = t
	}
	for _, t := range add {
		name := t.Name()
		if name == "" {
			return nil, fmt.Errorf("a %s tool has an empty name", t.Kind())
		}
		if prev, ok := out[name]; ok {
			return nil, fmt.Errorf("tool %q registered twice (%s and %s)", name, prev.Kind(), t.Kind())
		}
		out[name] = t
	}
	return out, nil
}

func sortedNames(tools map[string]Tool) []string {
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func profileNames() string {
	names := make([]string, len(Profiles()))
	for i, p := range Profiles() {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// resolveAllowed finds each allowed external in the PATH of shelter's own
// environment, once: what a session's PATH says never decides which
// program an allowed name runs.
func resolveAllowed(cfg Config) map[string]string {
	if len(cfg.AllowExternal) == 0 {
		return nil
	}
	path, _ := cfg.LookupEnv("PATH")
	wd, _ := os.Getwd()
	out := make(map[string]string, len(cfg.AllowExternal))
	for _, name := range cfg.AllowExternal {
		if p, err := spawn.LookPath(path, wd, name); err == nil && filepath.IsAbs(p) {
			out[name] = p
		}
	}
	return out
}
