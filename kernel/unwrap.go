package kernel

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// A Launcher is a tool that runs a command named in its words, as env,
// timeout and xargs do. The guard and the static pass look through it: a
// command a harness tool replaces is refused behind it, and the launched
// command's tool gets its static check. A launcher's Run and its Unwrap
// should read the words with one grammar, so that what the static pass
// judges is what runs; Run should start the command with [Call.Launch],
// so that every policy applies to it at execution too.
type Launcher interface {
	Tool
	// Unwrap finds the command a call launches; words[0] is the
	// launcher's name as typed. ok is false when the words launch
	// nothing (env printing the environment, a flag the launcher
	// refuses). An opaque word where a flag may stand ends the reading:
	// the launched command then starts at it.
	Unwrap(words []Word) (launched Launched, ok bool)
}

// Launched is the command a [Launcher]'s words launch.
type Launched struct {
	// Words are the launched command's words. A launcher that adds words
	// at execution (xargs) ends them with an opaque word.
	Words []Word
	// Assigns name the variables the launcher sets for the command (env
	// NAME=VALUE), checked against the guard's variable entries.
	Assigns []string
}

// launcherNames are the commands a session never takes from PATH: each
// runs another command, which would then escape the guard, the tools and
// the external policy. They run only as a registered tool of that name.
var launcherNames = []string{"chrt", "env", "flock", "ionice", "nice", "nohup", "setsid", "stdbuf", "taskset", "timeout", "xargs"}

// LauncherNames returns the names a session runs only as a registered
// tool, sorted: env, timeout, nice, nohup, xargs, setsid, stdbuf, ionice,
// taskset, chrt and flock. A call of one of them, by name or by a path
// (/usr/bin/env), that no tool of that name answers is refused with an
// [*UnregisteredLauncherError], in the static pass and at execution, in
// every profile. Package builtins provides all of them.
func LauncherNames() []string { return slices.Clone(launcherNames) }

func isLauncherName(name string) bool {
	switch name {
	case "chrt", "env", "flock", "ionice", "nice", "nohup", "setsid", "stdbuf", "taskset", "timeout", "xargs":
		return true
	}
	return false
}

// UnregisteredLauncherError is the refusal of a launcher name (see
// [LauncherNames]) that no registered tool answers: the name itself when
// no tool has it, or a path to a program of that name.
type UnregisteredLauncherError struct {
	// Command is the command's first word as typed: "env", "/usr/bin/env".
	Command string
	// Registered is true when a tool of the launcher's name exists, and
	// Command spelled the launcher as a path.
	Registered bool
}

// Error is the line: "shelter: 'env' is a launcher and no launcher of
// that name is registered, so it is not taken from PATH; register
// builtins.Launchers() in Config.Tools", or for a path when the tool is
// registered, "shelter: '/usr/bin/env' is a launcher, run only as
// shelter's own; allowed: env".
func (e *UnregisteredLauncherError) Error() string {
	name := filepath.Base(e.Command)
	if e.Registered {
		return fmt.Sprintf("shelter: '%s' is a launcher, run only as shelter's own; allowed: %s", singleLine(e.Command), name)
	}
	return fmt.Sprintf("shelter: '%s' is a launcher and no launcher of that name is registered, so it is not taken from PATH; register builtins.Launchers() in Config.Tools", singleLine(e.Command))
}

// launcherRefusal refuses a command whose name is a launcher's that no
// tool answers; tools[name] is known to be nil.
func launcherRefusal(tools map[string]Tool, name string) (*UnregisteredLauncherError, bool) {
	base := commandBase(name)
	if !isLauncherName(base) {
		return nil, false
	}
	return &UnregisteredLauncherError{Command: name, Registered: base != name && tools[base] != nil}, true
}

// shellLauncherOptions lists, for the launchers that are no tool (the
// shell's command and exec, and sudo), the options that take a separate
// value; any other word starting with '-' is a flag on its own.
var shellLauncherOptions = map[string][]string{
	"command": {},
	"exec":    {"-a"},
	"sudo":    {"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"},
}

// unwrapLaunchers strips launchers with their options from the front of
// a command (registered [Launcher] tools, command, exec and sudo),
// returning the command they launch and the variables they assign on the
// way. `command -v` and similar queries launch nothing and are returned
// as is.
func (g *guard) unwrapLaunchers(words []Word) (inner []Word, assigns []string) {
	for {
		next, ok := g.unwrapOne(words)
		if !ok {
			return words, assigns
		}
		assigns = append(assigns, next.Assigns...)
		words = next.Words
	}
}

// unwrapOne strips one launcher with its options. ok is false when words
// do not start with a launcher that launches something.
func (g *guard) unwrapOne(words []Word) (Launched, bool) {
	if len(words) == 0 || words[0].Opaque {
		return Launched{}, false
	}
	name := commandBase(words[0].Text)
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

// commandBase is filepath.Base of a command's name, at no cost for the
// usual name that has no slash.
func commandBase(name string) string {
	if name != "" && strings.IndexByte(name, '/') < 0 {
		return name
	}
	return filepath.Base(name)
}

// unwrapShellLauncher strips command, exec or sudo.
func unwrapShellLauncher(launcher string, words []Word) (Launched, bool) {
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
			if name, _, ok := strings.Cut(w.Text, "="); ok && isName(name) {
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
