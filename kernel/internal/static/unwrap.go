package static

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// shellLauncherOptions lists, for the launchers that are no tool (the
// shell's command and exec, and sudo), the options that take a separate
// value; any other word starting with '-' is a flag on its own.
var shellLauncherOptions = map[string][]string{
	"command": {},
	"exec":    {"-a"},
	"sudo":    {"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"},
}

// unwrapLaunchers strips launchers with their options from the front of
// a command (registered launchers, command, exec and sudo),
// returning the command they launch and the variables they assign on the
// way. `command -v` and similar queries launch nothing and are returned
// as is.
func (g *Guard) unwrapLaunchers(words []shast.Word) (inner []shast.Word, assigns []string) {
	for {
		next, ok := g.UnwrapOne(words)
		if !ok {
			return words, assigns
		}
		assigns = append(assigns, next.Assigns...)
		words = next.Words
	}
}

// UnwrapOne strips one launcher with its options. ok is false when words
// do not start with a launcher that launches something.
func (g *Guard) UnwrapOne(words []shast.Word) (Launched, bool) {
	if len(words) == 0 || words[0].Opaque {
		return Launched{}, false
	}
	name := CommandBase(words[0].Text)
	if g != nil {
		if l, ok := g.launchers[name]; ok {
			return l.Unwrap(words)
		}
	}
	return unwrapShellLauncher(name, words)
}

// isShellLauncher reports whether name is one of shellLauncherOptions'
// launchers, without a map lookup.
func isShellLauncher(name string) bool {
	switch name {
	case "command", "exec", "sudo":
		return true
	}
	return false
}

// CommandBase is filepath.Base of a command's name, at no cost for the
// usual name that has no slash.
func CommandBase(name string) string {
	if name != "" && strings.IndexByte(name, '/') < 0 {
		return name
	}
	return filepath.Base(name)
}

// unwrapShellLauncher strips command, exec or sudo.
func unwrapShellLauncher(launcher string, words []shast.Word) (Launched, bool) {
	if !isShellLauncher(launcher) {
		return Launched{}, false // most commands, at once
	}
	valued := shellLauncherOptions[launcher]
	if launcher == "command" && len(words) > 1 && (words[1].Text == "-v" || words[1].Text == "-V") {
		return Launched{}, false
	}
	var assigns []string
	rest := words[1:]
	for len(rest) > 0 {
		w := rest[0]
		if w.Opaque {
			break
		}
		if w.Text == "--" {
			rest = rest[1:]
			break
		}
		if strings.HasPrefix(w.Text, "-") && len(w.Text) > 1 {
			rest = rest[1:]
			if (clusterTakesNext(w.Text, valued) || slices.Contains(valued, w.Text)) && len(rest) > 0 {
				rest = rest[1:]
			}
			continue
		}
		if launcher == "sudo" {
			if name, _, ok := strings.Cut(w.Text, "="); ok && IsName(name) {
				assigns = append(assigns, name)
				rest = rest[1:]
				continue
			}
		}
		break
	}
	return Launched{Words: rest, Assigns: assigns}, true
}

// clusterTakesNext reports whether a cluster of one-letter options such as
// -iu ends with one that takes a value; an option inside the cluster that
// takes a value takes the rest of the word instead.
func clusterTakesNext(word string, valued []string) bool {
	if len(word) < 3 || word[1] == '-' {
		return false
	}
	for i := 1; i < len(word); i++ {
		if slices.Contains(valued, "-"+word[i:i+1]) {
			return i == len(word)-1
		}
	}
	return false
}
