package workspace

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

// A refusal is an error that a caller can correct: the operation did
// nothing, and Error() is the one line that says what was wrong and what
// is allowed.
type refusal interface {
	error
	refusal()
}

// IsRefusal reports whether err (or an error it wraps) is a refusal of the
// workspace: the operation was refused before any write and err's message
// is one line meant for the caller. Other errors are failures (git could
// not run, a file could not be written).
func IsRefusal(err error) bool {
	var r refusal
	return errors.As(err, &r)
}

// UnknownRoleError refuses a dispatch whose role the governing
// providers.yaml does not define.
type UnknownRoleError struct {
	Role    string
	Agent   string   // the caller
	Defined []string // the roles the governing config defines
}

func (e *UnknownRoleError) Error() string {
	return fmt.Sprintf("role %q is not defined in the providers.yaml governing agent %q; defined roles: %s", e.Role, e.Agent, kernel.Pool(e.Defined))
}

// MissingSoulError refuses a dispatch whose role has no souls/<role>.md in
// the same config commit.
type MissingSoulError struct {
	Role  string
	Agent string
}

func (e *MissingSoulError) Error() string {
	return fmt.Sprintf("role %q is defined but souls/%s.md is missing from the config governing agent %q", e.Role, e.Role, e.Agent)
}

// UndescribedToolError refuses a dispatch whose role grants a tool the
// governing config has no descriptions/tools/<tool>.json for.
type UndescribedToolError struct {
	Role      string
	Tool      string
	Described []string
}

func (e *UndescribedToolError) Error() string {
	return fmt.Sprintf("role %q grants tool %q, which its governing config does not describe; described tools: %s", e.Role, e.Tool, kernel.Pool(e.Described))
}

// DepthError refuses a dispatch whose child would be deeper than
// workflow.yaml's budgets.max_depth.
type DepthError struct {
	Agent string // the caller
	Depth int    // the child's depth
	Max   int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("a child of agent %q would be at depth %d, over max_depth %d set in the governing workflow.yaml", e.Agent, e.Depth, e.Max)
}

// BadNameError refuses a name (an agent's name, an agent address, a skill
// name) that is not a single path component or otherwise malformed.
type BadNameError struct {
	What   string // "name", "agent", "skill name"
	Name   string
	Reason string // "is not a single path component", ...
	Allow  string // what is allowed
}

func (e *BadNameError) Error() string {
	return fmt.Sprintf("%s %q %s; %s", e.What, e.Name, e.Reason, e.Allow)
}

// NameTakenError refuses a dispatch whose name another agent wears.
type NameTakenError struct {
	Name  string
	Agent string
}

func (e *NameTakenError) Error() string {
	return fmt.Sprintf("name %q is taken by agent %s", e.Name, e.Agent)
}

// UnknownAgentError refuses an address that is neither an agent's id nor
// a name an agent wears.
type UnknownAgentError struct{ Agent string }

func (e *UnknownAgentError) Error() string {
	return fmt.Sprintf("no agent %q in this workspace", e.Agent)
}

// AmbiguousNameError refuses a name worn by several agents.
type AmbiguousNameError struct {
	Name   string
	Agents []string // sorted ids
}

func (e *AmbiguousNameError) Error() string {
	return fmt.Sprintf("agent name %q is ambiguous: worn by %s; address one by id", e.Name, strings.Join(e.Agents, ", "))
}

// UnknownSkillError refuses a skill the pool does not hold.
type UnknownSkillError struct {
	Name      string
	Available []string
}

func (e *UnknownSkillError) Error() string {
	return fmt.Sprintf("unknown skill %q; available: %s", e.Name, kernel.Pool(e.Available))
}

// UnknownConfigError refuses a config name with no config/<name> branch.
type UnknownConfigError struct {
	Name    string
	Configs []string
}

func (e *UnknownConfigError) Error() string {
	return fmt.Sprintf("no config %q in this workspace; configs: %s", e.Name, kernel.Pool(e.Configs))
}

// GoverningError says an agent has no governing config commit: no config
// branch reaches its branch, or two that do are not ancestor-related.
type GoverningError struct {
	Agent string
	// Branches holds the config branches whose merge bases conflict; it is
	// empty when none reaches the agent.
	Branches []string
}

func (e *GoverningError) Error() string {
	if len(e.Branches) == 0 {
		return fmt.Sprintf("agent %q has no governing config: no config/* branch reaches its branch", e.Agent)
	}
	return fmt.Sprintf("agent %q has no single governing config: %s reach it through unrelated commits; merge them or fork from one", e.Agent, strings.Join(e.Branches, ", "))
}

// ConfigError says a control file of a governing config commit is invalid.
type ConfigError struct {
	Agent string
	File  string
	Err   string // one line
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s in the config governing agent %q is invalid: %s", e.File, e.Agent, e.Err)
}

// NoCallerError refuses an operation that needs a calling agent when the
// session has none.
type NoCallerError struct{ Op string }

func (e *NoCallerError) Error() string {
	return fmt.Sprintf("%s needs a calling agent; start the session with --workspace W --agent ID", e.Op)
}

// EmptyInputError refuses a required field given empty.
type EmptyInputError struct{ Op, Field string }

func (e *EmptyInputError) Error() string {
	return fmt.Sprintf("%s: %s is empty; give a non-empty %s", e.Op, e.Field, e.Field)
}

// WorkspaceExistsError refuses Init on a directory that is not empty.
type WorkspaceExistsError struct{ Dir string }

func (e *WorkspaceExistsError) Error() string {
	return fmt.Sprintf("%s exists and is not empty; give a new or empty directory", e.Dir)
}

// NotWorkspaceError refuses Open on a directory that holds no workspace.
type NotWorkspaceError struct{ Dir string }

func (e *NotWorkspaceError) Error() string {
	return fmt.Sprintf("%s is not a workspace (no repo.git); create one with `shelter workspace init %s`", e.Dir, e.Dir)
}

func (*UnknownRoleError) refusal()     {}
func (*MissingSoulError) refusal()     {}
func (*UndescribedToolError) refusal() {}
func (*DepthError) refusal()           {}
func (*BadNameError) refusal()         {}
func (*NameTakenError) refusal()       {}
func (*UnknownAgentError) refusal()    {}
func (*AmbiguousNameError) refusal()   {}
func (*UnknownSkillError) refusal()    {}
func (*UnknownConfigError) refusal()   {}
func (*GoverningError) refusal()       {}
func (*ConfigError) refusal()          {}
func (*NoCallerError) refusal()        {}
func (*EmptyInputError) refusal()      {}
func (*WorkspaceExistsError) refusal() {}
func (*NotWorkspaceError) refusal()    {}
