package workspace

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

// A refuser is an error that a caller can correct: the operation did
// nothing. Its parts are what was wrong and what is allowed instead; its
// Error() is the one line "workspace: what; allowed: pool", and whoever
// refuses on its behalf (a workspace tool, a shelter verb) names itself
// instead of "workspace" ([AsRefusal]).
type refuser interface {
	error
	refusal() *kernel.Refusal
}

// IsRefusal reports whether err (or an error it wraps) is a refusal of the
// workspace: the operation was refused before any write and err's message
// is one line meant for the caller. Other errors are failures (git could
// not run, a file could not be written).
func IsRefusal(err error) bool {
	var r refuser
	return errors.As(err, &r)
}

// AsRefusal renders err, when it is a refusal of the workspace
// ([IsRefusal]), as command's refusal: the same line with command first,
// for the workspace tools and for shelter's workspace verbs.
func AsRefusal(command string, err error) (*kernel.Refusal, bool) {
	var r refuser
	if !errors.As(err, &r) {
		return nil, false
	}
	ref := r.refusal()
	ref.Command = command
	return ref, true
}

// refusal is the kernel's refusal of the workspace: what was wrong and
// what is allowed instead.
func refusal(what string, allowed ...string) *kernel.Refusal {
	return &kernel.Refusal{Command: "workspace", What: what, Allowed: allowed}
}

// UnknownRoleError refuses a dispatch whose role the governing
// providers.yaml does not define.
type UnknownRoleError struct {
	Role    string
	Agent   string   // the caller
	Defined []string // the roles the governing config defines
}

func (e *UnknownRoleError) Error() string { return e.refusal().Error() }

func (e *UnknownRoleError) refusal() *kernel.Refusal {
	return refusal("role "+kernel.Quote(e.Role)+" is not defined in the providers.yaml governing agent "+kernel.Quote(e.Agent), e.Defined...)
}

// MissingSoulError refuses a dispatch whose role has no souls/<role>.md in
// the same config commit.
type MissingSoulError struct {
	Role  string
	Agent string
}

func (e *MissingSoulError) Error() string { return e.refusal().Error() }

func (e *MissingSoulError) refusal() *kernel.Refusal {
	return refusal("role " + kernel.Quote(e.Role) + " is defined but souls/" + e.Role + ".md is missing from the config governing agent " + kernel.Quote(e.Agent))
}

// UndescribedToolError refuses a dispatch whose role grants a tool the
// governing config has no descriptions/tools/<tool>.json for.
type UndescribedToolError struct {
	Role      string
	Tool      string
	Described []string
}

func (e *UndescribedToolError) Error() string { return e.refusal().Error() }

func (e *UndescribedToolError) refusal() *kernel.Refusal {
	return refusal("role "+kernel.Quote(e.Role)+" grants tool "+kernel.Quote(e.Tool)+", which its governing config does not describe", e.Described...)
}

// DepthError refuses a dispatch whose child would be deeper than
// workflow.yaml's budgets.max_depth.
type DepthError struct {
	Agent string // the caller
	Depth int    // the child's depth
	Max   int
}

func (e *DepthError) Error() string { return e.refusal().Error() }

func (e *DepthError) refusal() *kernel.Refusal {
	return refusal(fmt.Sprintf("a child of agent %s would be at depth %d, over max_depth %d set in the governing workflow.yaml", kernel.Quote(e.Agent), e.Depth, e.Max))
}

// BadNameError refuses a name (an agent's name, an agent address, a skill
// name) that is not a single path component or otherwise malformed.
type BadNameError struct {
	What   string // "name", "agent", "skill name"
	Name   string
	Reason string // "is not a single path component", ...
	Allow  string // what is allowed
}

func (e *BadNameError) Error() string { return e.refusal().Error() }

func (e *BadNameError) refusal() *kernel.Refusal {
	return refusal(e.What+" "+kernel.Quote(e.Name)+" "+e.Reason, e.Allow)
}

// NameTakenError refuses a dispatch whose name another agent wears.
type NameTakenError struct {
	Name  string
	Agent string
}

func (e *NameTakenError) Error() string { return e.refusal().Error() }

func (e *NameTakenError) refusal() *kernel.Refusal {
	return refusal("name "+kernel.Quote(e.Name)+" is taken by agent "+e.Agent, "a name no other agent wears")
}

// UnknownAgentError refuses an address that is neither an agent's id nor
// a name an agent wears.
type UnknownAgentError struct{ Agent string }

func (e *UnknownAgentError) Error() string { return e.refusal().Error() }

func (e *UnknownAgentError) refusal() *kernel.Refusal {
	return refusal("no agent "+kernel.Quote(e.Agent)+" in this workspace", "an agent's id", "a name an agent wears")
}

// AmbiguousNameError refuses a name worn by several agents.
type AmbiguousNameError struct {
	Name   string
	Agents []string // sorted ids
}

func (e *AmbiguousNameError) Error() string { return e.refusal().Error() }

func (e *AmbiguousNameError) refusal() *kernel.Refusal {
	return refusal("agent name "+kernel.Quote(e.Name)+" is ambiguous: address one of the agents wearing it by id", e.Agents...)
}

// UnknownSkillError refuses a skill the pool does not hold.
type UnknownSkillError struct {
	Name      string
	Available []string
}

func (e *UnknownSkillError) Error() string { return e.refusal().Error() }

func (e *UnknownSkillError) refusal() *kernel.Refusal {
	return refusal("unknown skill "+kernel.Quote(e.Name), e.Available...)
}

// UnknownConfigError refuses a config name with no config/<name> branch.
type UnknownConfigError struct {
	Name    string
	Configs []string
}

func (e *UnknownConfigError) Error() string { return e.refusal().Error() }

func (e *UnknownConfigError) refusal() *kernel.Refusal {
	return refusal("no config "+kernel.Quote(e.Name)+" in this workspace", e.Configs...)
}

// GoverningError says an agent has no governing config commit: no config
// branch reaches its branch, or two that do are not ancestor-related.
type GoverningError struct {
	Agent string
	// Branches holds the config branches whose merge bases conflict; it is
	// empty when none reaches the agent.
	Branches []string
}

func (e *GoverningError) Error() string { return e.refusal().Error() }

func (e *GoverningError) refusal() *kernel.Refusal {
	if len(e.Branches) == 0 {
		return refusal("agent " + kernel.Quote(e.Agent) + " has no governing config: no config/* branch reaches its branch")
	}
	return refusal("agent "+kernel.Quote(e.Agent)+" has no single governing config: "+strings.Join(e.Branches, ", ")+" reach it through unrelated commits",
		"a merge of them", "a fork from one")
}

// ConfigError says a control file of a governing config commit is invalid.
type ConfigError struct {
	Agent string
	File  string
	Err   string // one line
}

func (e *ConfigError) Error() string { return e.refusal().Error() }

func (e *ConfigError) refusal() *kernel.Refusal {
	return refusal(e.File + " in the config governing agent " + kernel.Quote(e.Agent) + " is invalid: " + e.Err)
}

// NoCallerError refuses an operation that needs a calling agent when the
// session has none.
type NoCallerError struct{ Op string }

func (e *NoCallerError) Error() string { return e.refusal().Error() }

func (e *NoCallerError) refusal() *kernel.Refusal {
	return refusal("no calling agent", "a session started with --workspace W --agent ID")
}

// EmptyInputError refuses a required field given empty.
type EmptyInputError struct{ Op, Field string }

func (e *EmptyInputError) Error() string { return e.refusal().Error() }

func (e *EmptyInputError) refusal() *kernel.Refusal {
	return refusal(kernel.Quote(e.Field)+" is empty", "a non-empty "+e.Field)
}

// WorkspaceExistsError refuses Init on a directory that is not empty.
type WorkspaceExistsError struct{ Dir string }

func (e *WorkspaceExistsError) Error() string { return e.refusal().Error() }

func (e *WorkspaceExistsError) refusal() *kernel.Refusal {
	return refusal(kernel.Quote(e.Dir)+" exists and is not empty", "a new or empty directory")
}

// NotWorkspaceError refuses Open on a directory that holds no workspace.
type NotWorkspaceError struct{ Dir string }

func (e *NotWorkspaceError) Error() string { return e.refusal().Error() }

func (e *NotWorkspaceError) refusal() *kernel.Refusal {
	return refusal(kernel.Quote(e.Dir)+" is not a workspace (no repo.git)", "a workspace made by `shelter workspace init "+e.Dir+"`")
}

// inputError refuses a tool's input that does not decode into the
// operation's input (a schema that was loosened).
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.refusal().Error() }

func (e *inputError) refusal() *kernel.Refusal {
	return refusal("invalid input: "+e.msg, "input the tool's schema describes")
}
