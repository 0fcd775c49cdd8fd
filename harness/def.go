package harness

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/shelter-sh/shelter/kernel"
)

// Def describes a harness tool.
type Def struct {
	// Name is the command name: [a-z][a-z0-9_-]{0,47}.
	Name string
	// Description is one or a few sentences for agents. When Replaces is
	// set, the tool's description ends with "Use instead of: …".
	Description string
	// Input is the JSON Schema (draft 2020-12) of the tool's input. It must
	// describe an object; nil means an object with no properties.
	Input json.RawMessage
	// Output is the optional JSON Schema of the tool's JSON result.
	Output json.RawMessage
	// Annotations are hints for clients (MCP tool annotations).
	Annotations Annotations
	// Replaces lists the shell commands the tool is the preferred way to
	// do, each as typed ("journalctl", "systemctl restart"); one
	// upper-case word names an environment variable (see the kernel's
	// guard).
	Replaces []string
	// PassEnv names variables of the agent's own that an executable tool
	// ([Exec]) gets in the sandbox profile, where a declared program
	// otherwise sees only the session's starting variables
	// (kernel.Call.ProgramEnv); elsewhere it already gets the session's
	// exports. Each must be a variable name and not one that injects
	// code into a program ([kernel.InjectionVar]). A function tool
	// ignores it.
	PassEnv []string
	// Env pins variables of an executable tool's environment: they win
	// over the session's, and may set an injection variable on purpose.
	// A function tool ignores it.
	Env map[string]string
	// Network lets an executable tool use the host's network where the
	// session confines its programs (the sandbox profile), which
	// otherwise gives each start a network namespace of its own with
	// only loopback. Where the session does not confine its programs it
	// changes nothing. A function tool ignores it.
	Network bool
	// ReadPaths are further files and directories an executable tool may
	// read and execute, each with everything beneath it, where the
	// session confines its programs: beside the system's directories,
	// the session's root and its $TMPDIR, which it always may. A
	// relative path is taken from the working directory of shelter's
	// process (from the file's directory in YAML); [Exec] refuses a
	// path that does not exist. A function tool ignores it.
	ReadPaths []string
	// WritePaths are further files and directories an executable tool
	// may read and write, taken as ReadPaths are: a shared cache, say.
	WritePaths []string
}

// Annotations are hints about a tool's behaviour for clients; shelter
// enforces none of them. They are the kernel's, so that
// [kernel.Describe] lists them.
type Annotations = kernel.Annotations

// namePattern and varName compile on first use: a process that links
// harness pays nothing for them until it defines a tool.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_-]{0,47}$`) })

// emptyInput is the schema of a tool that declares no input.
var emptyInput = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// checkDef reports what is wrong with a definition, before any schema is
// compiled.
func checkDef(d Def) error {
	if !namePattern().MatchString(d.Name) {
		return fmt.Errorf("harness: tool name %q must match [a-z][a-z0-9_-]{0,47}", d.Name)
	}
	for _, r := range d.Replaces {
		if len(strings.Fields(r)) == 0 {
			return fmt.Errorf("harness: tool %s: an empty replaces entry", d.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(d.Env)) {
		if !varName().MatchString(name) {
			return &keyError{tool: d.Name, key: "env", index: -1, msg: fmt.Sprintf("'%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", printable(name))}
		}
		if strings.IndexByte(d.Env[name], 0) >= 0 {
			return &keyError{tool: d.Name, key: "env", index: -1, msg: fmt.Sprintf("%s: the value contains a NUL byte", name)}
		}
	}
	for _, key := range []string{"read_paths", "write_paths"} {
		paths := d.ReadPaths
		if key == "write_paths" {
			paths = d.WritePaths
		}
		for i, p := range paths {
			switch {
			case p == "":
				return &keyError{tool: d.Name, key: key, index: i, msg: "an empty path; allowed: existing files and directories"}
			case strings.IndexByte(p, 0) >= 0:
				return &keyError{tool: d.Name, key: key, index: i, msg: "a path contains a NUL byte"}
			}
		}
	}
	for i, name := range d.PassEnv {
		if err := checkPassName(name, d.PassEnv[:i]); err != nil {
			return &keyError{tool: d.Name, key: "pass_env", index: i, msg: err.Error()}
		}
	}
	return nil
}

// checkPassName accepts a pass_env entry: a variable name, not listed
// before, that does not inject code into the program.
func checkPassName(name string, before []string) error {
	if !varName().MatchString(name) {
		return fmt.Errorf("'%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", printable(name))
	}
	if kernel.InjectionVar(name) {
		return fmt.Errorf("'%s' makes the program load or run code it names, so the agent's value may not reach it; pin it under env: to set it on purpose", name)
	}
	if slices.Contains(before, name) {
		return fmt.Errorf("'%s' listed twice", name)
	}
	return nil
}

var varName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// keyError is a definition refused for one key's value; the YAML loader
// points at that value (item index of a list).
type keyError struct {
	tool, key string
	index     int
	msg       string
}

func (e *keyError) Error() string {
	return fmt.Sprintf("harness: tool %s: %s: %s", e.tool, e.key, e.msg)
}

// agentDescription is the description agents see: the tool's own, then
// the commands it replaces.
func agentDescription(d Def) string {
	desc := strings.TrimSpace(d.Description)
	if len(d.Replaces) == 0 {
		return desc
	}
	entries := make([]string, len(d.Replaces))
	for i, r := range d.Replaces {
		entries[i] = strings.Join(strings.Fields(r), " ")
	}
	use := "Use instead of: " + strings.Join(entries, ", ") + "."
	if desc == "" {
		return use
	}
	return desc + " " + use
}
