package kernel

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
)

// sessionEnv computes a session's starting variables, all exported: the
// core set and PassEnv copied from the host by name, then the profile's and
// the embedder's values, then what shelter always sets.
func (k *Kernel) sessionEnv(opts SessionOptions, tmpdir, dir string) map[string]string {
	env := make(map[string]string)
	core := k.cfg.CoreEnv
	if core == nil {
		core = DefaultCoreEnv()
	}
	for _, names := range [][]string{core, k.cfg.PassEnv, opts.PassEnv} {
		for _, name := range names {
			if v, ok := k.cfg.LookupEnv(name); ok {
				env[name] = v
			}
		}
	}
	maps.Copy(env, k.cfg.Env)
	maps.Copy(env, opts.Env)
	if _, ok := env["TERM"]; !ok {
		env["TERM"] = "dumb"
	}
	if _, ok := env["LANG"]; !ok {
		env["LANG"] = "C.UTF-8"
	}
	if k.cfg.Profile == ProfileSandbox {
		env["HOME"] = k.cfg.Root
		if k.cfg.Root == "" {
			env["HOME"] = dir
		}
	}
	env["TMPDIR"] = tmpdir
	env["PWD"] = dir
	return env
}

func listEnviron(env map[string]string) expand.Environ {
	pairs := make([]string, 0, len(env))
	for _, name := range slices.Sorted(maps.Keys(env)) {
		pairs = append(pairs, name+"="+env[name])
	}
	return expand.ListEnviron(pairs...)
}

// exported returns the variables a child process gets: exactly the
// exported, set, scalar variables of env, sorted by name. Each may report a
// name more than once; the latest report wins, unset included.
func exported(env expand.Environ) []string {
	vars := make(map[string]expand.Variable)
	env.Each(func(name string, v expand.Variable) bool {
		vars[name] = v
		return true
	})
	pairs := make([]string, 0, len(vars))
	for name, v := range vars {
		if v.Exported && v.IsSet() && v.Kind == expand.String {
			pairs = append(pairs, name+"="+v.Str)
		}
	}
	slices.Sort(pairs)
	return pairs
}

// childEnv is the environment of a command the session runs: its exported
// variables, with PWD always the working directory (mvdan/sh's cd resets
// PWD's export attribute; a child must still see where it runs).
func childEnv(env expand.Environ, dir string) []string {
	pairs := exported(env)
	for i, kv := range pairs {
		if strings.HasPrefix(kv, "PWD=") {
			pairs[i] = "PWD=" + dir
			return pairs
		}
	}
	pairs = append(pairs, "PWD="+dir)
	slices.Sort(pairs)
	return pairs
}
