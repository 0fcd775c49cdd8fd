package harness

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

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
}

// Annotations are hints about a tool's behaviour for clients; shelter
// enforces none of them. They are the kernel's, so that
// [kernel.Describe] lists them.
type Annotations = kernel.Annotations

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,47}$`)

// emptyInput is the schema of a tool that declares no input.
var emptyInput = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// checkDef reports what is wrong with a definition, before any schema is
// compiled.
func checkDef(d Def) error {
	if !namePattern.MatchString(d.Name) {
		return fmt.Errorf("harness: tool name %q must match [a-z][a-z0-9_-]{0,47}", d.Name)
	}
	for _, r := range d.Replaces {
		if len(strings.Fields(r)) == 0 {
			return fmt.Errorf("harness: tool %s: an empty replaces entry", d.Name)
		}
	}
	return nil
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
