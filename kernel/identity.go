package kernel

import (
	"maps"
	"os"
	"runtime"
	"sync"
)

// shellIdentity is the shell variables bash sets at start-up to say what
// it runs on, each one unexported and only where the session's starting
// variables do not name it, as bash does (docs/embedding.md, "The
// environment"). OSTYPE, HOSTTYPE and MACHTYPE describe the build, in
// bash's spellings, in every profile: they tell nothing a program could
// not. HOSTNAME is the host's name, but in the sandbox profile, which
// does not reveal its host.
func (k *Kernel) shellIdentity(env *startEnv) map[string]string {
	vars := buildIdentity()
	if k.cfg.Profile != ProfileSandbox {
		vars = hostIdentity()
	}
	for name := range vars {
		if _, ok := env.lookup(name); ok {
			vars = maps.Clone(vars)
			for name := range env.all {
				delete(vars, name)
			}
			break
		}
	}
	return vars // shared between sessions, read only
}

// buildIdentity and hostIdentity are made once: a session's start
// allocates nothing for them.
var (
	buildIdentity = sync.OnceValue(func() map[string]string {
		return map[string]string{"OSTYPE": osType, "HOSTTYPE": hostType, "MACHTYPE": machType}
	})
	hostIdentity = sync.OnceValue(func() map[string]string {
		vars := maps.Clone(buildIdentity())
		if name, _ := os.Hostname(); name != "" {
			vars["HOSTNAME"] = name
		}
		return vars
	})
)

// osType, hostType and machType are bash's OSTYPE, HOSTTYPE and MACHTYPE
// for the build's system and architecture, as bash's configure names
// them ("linux-gnu", "x86_64", "x86_64-pc-linux-gnu").
var osType, hostType, machType = bashSystem(runtime.GOOS, runtime.GOARCH)

func bashSystem(goos, goarch string) (ostype, hosttype, machtype string) {
	ostype = goos
	if goos == "linux" {
		ostype = "linux-gnu"
	}
	hosttype = goarch
	switch goarch {
	case "amd64":
		hosttype = "x86_64"
	case "arm64":
		if goos != "darwin" {
			hosttype = "aarch64"
		}
	case "386":
		hosttype = "i686"
	case "ppc64le":
		hosttype = "powerpc64le"
	case "ppc64":
		hosttype = "powerpc64"
	case "loong64":
		hosttype = "loongarch64"
	}
	vendor := "unknown"
	switch {
	case goos == "darwin":
		vendor = "apple"
	case goarch == "amd64" || goarch == "386":
		vendor = "pc"
	}
	return ostype, hosttype, hosttype + "-" + vendor + "-" + ostype
}
