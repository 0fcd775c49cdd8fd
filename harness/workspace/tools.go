package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
)

// Output schemas of the workspace tools.
const (
	dispatchOutput  = `{"type":"object","properties":{"status":{"const":"in_progress"},"handle":{"type":"string"}},"required":["status","handle"]}`
	messageOutput   = `{"type":"object","properties":{"status":{"const":"deposited"}},"required":["status"]}`
	loadSkillOutput = `{"type":"object","properties":{"status":{"enum":["loaded","already_loaded"]},"path":{"type":"string"}},"required":["status","path"]}`
)

// toolNames are the workspace tools [Tools] makes, sorted.
var toolNames = []string{"dispatch", "load_skill", "message"}

// Tools returns the workspace's harness tools — dispatch, message and
// load_skill — whatever the caller. The calling agent is the session's
// [kernel.Caller].Agent, set by the embedder; no tool takes it from its
// input. A call by an agent whose role does not grant the tool is refused
// with a [*NotGrantedError] (a session without an agent is the operator's,
// and is not checked); [Workspace.Session] goes further and registers only
// the grant. A refusal of the workspace becomes a [*kernel.Refusal]: its
// line on stderr, status 2.
func Tools(ws *Workspace) ([]kernel.Tool, error) {
	return ws.tools(toolNames, true)
}

// tools makes the workspace tools named in names; with checked, each call
// is refused unless the caller's role grants the tool.
func (ws *Workspace) tools(names []string, checked bool) ([]kernel.Tool, error) {
	defs := []struct {
		def harness.Def
		run func(ctx context.Context, caller string, args json.RawMessage) (any, error)
	}{
		{harness.Def{
			Name: "dispatch", Description: dispatchDescription,
			Input: json.RawMessage(DispatchSchema), Output: json.RawMessage(dispatchOutput),
		}, func(ctx context.Context, caller string, args json.RawMessage) (any, error) {
			var in DispatchInput
			if err := decodeInput(args, &in); err != nil {
				return nil, err
			}
			return ws.Dispatch(ctx, caller, in)
		}},
		{harness.Def{
			Name: "message", Description: messageDescription,
			Input: json.RawMessage(MessageSchema), Output: json.RawMessage(messageOutput),
		}, func(ctx context.Context, caller string, args json.RawMessage) (any, error) {
			var in MessageInput
			if err := decodeInput(args, &in); err != nil {
				return nil, err
			}
			return ws.Message(ctx, caller, in)
		}},
		{harness.Def{
			Name: "load_skill", Description: loadSkillDescription,
			Input: json.RawMessage(LoadSkillSchema), Output: json.RawMessage(loadSkillOutput),
			Annotations: harness.Annotations{Idempotent: true},
		}, func(ctx context.Context, caller string, args json.RawMessage) (any, error) {
			var in LoadSkillInput
			if err := decodeInput(args, &in); err != nil {
				return nil, err
			}
			return ws.LoadSkill(ctx, caller, in)
		}},
	}
	tools := make([]kernel.Tool, 0, len(defs))
	for _, d := range defs {
		if !slices.Contains(names, d.def.Name) {
			continue
		}
		name, run := d.def.Name, d.run
		tool, err := harness.Func(d.def, func(ctx context.Context, in harness.Input) (any, error) {
			if checked {
				if err := ws.checkGrant(ctx, in.Caller.Agent, name); err != nil {
					return nil, toolError(name, err)
				}
			}
			out, err := run(ctx, in.Caller.Agent, in.Args)
			if err != nil {
				return nil, toolError(name, err)
			}
			return out, nil
		})
		if err != nil {
			return nil, fmt.Errorf("workspace tool %s: %w", d.def.Name, err)
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// decodeInput decodes validated input; the schema already refused unknown
// properties, so this only guards a schema that was loosened.
func decodeInput(args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &inputError{msg: err.Error()}
	}
	return nil
}

// toolError turns a refusal of the workspace into the kernel's refusal
// of the tool's call.
func toolError(tool string, err error) error {
	if r, ok := AsRefusal(tool, err); ok {
		return r
	}
	return err
}

// Session returns what a kernel session of agent id needs: the workspace
// tools its role grants ([Workspace.Grant]) and no others, so that a call
// of another is the kernel's unknown command; the caller identity (the
// agent and the workspace directory); and the agent's worktree as working
// directory. In the sandbox profile, confine the session to that
// directory (leave [kernel.Config].Root empty, or set it to dir): the
// repository, the inboxes and the other worktrees are then reached only
// through the tools. It fails with an [*UnknownAgentError] when the
// workspace has no such agent.
func (ws *Workspace) Session(ctx context.Context, id string) (tools []kernel.Tool, caller kernel.Caller, dir string, err error) {
	r, err := ws.readRefs(ctx)
	if err != nil {
		return nil, kernel.Caller{}, "", err
	}
	if err := r.checkAgent(id); err != nil {
		return nil, kernel.Caller{}, "", err
	}
	g, err := ws.grant(ctx, r, id)
	if err != nil {
		return nil, kernel.Caller{}, "", err
	}
	// Cut to the grant here, the tools need no check at the call.
	if tools, err = ws.tools(g.tools, false); err != nil {
		return nil, kernel.Caller{}, "", err
	}
	return tools, kernel.Caller{Agent: id, Workspace: ws.Dir}, ws.Worktree(id), nil
}

// checkGrant refuses a call of tool by agent caller that its role does not
// grant; a call without an agent is the operator's.
func (ws *Workspace) checkGrant(ctx context.Context, caller, tool string) error {
	if caller == "" {
		return nil
	}
	r, err := ws.readRefs(ctx)
	if err != nil {
		return err
	}
	g, err := ws.grant(ctx, r, caller)
	if err != nil {
		return err
	}
	if !g.allows(tool) {
		return &NotGrantedError{Tool: tool, Agent: caller, Role: g.role, Granted: g.tools}
	}
	return nil
}
