package workspace

import (
	"context"
	"slices"

	"github.com/shelter-sh/shelter/kernel"
)

// Role returns the role agent id was dispatched with, "" for a root
// agent. It is read from the oldest commit on the first-parent line of the
// agent's branch whose subject is the dispatch commit's, `dispatch: <role>
// [<id>]`: commits the agent adds later come after it, so they cannot
// change its role.
func (ws *Workspace) Role(ctx context.Context, id string) (string, error) {
	r, err := ws.readRefs(ctx)
	if err != nil {
		return "", err
	}
	return ws.role(ctx, r, id)
}

// role is [Workspace.Role] on the branches of r.
func (ws *Workspace) role(ctx context.Context, r *refs, id string) (string, error) {
	if err := r.checkAgent(id); err != nil {
		return "", err
	}
	if Parent(id) == "" {
		return "", nil
	}
	subjects, err := ws.git.lines(ctx, "", "log", "--first-parent", "--format=%s", "--grep=^dispatch: ", r.agents[id])
	if err != nil {
		return "", err
	}
	for _, s := range slices.Backward(subjects) {
		if m := dispatchSubject().FindStringSubmatch(s); m != nil && m[2] == id {
			return m[1], nil
		}
	}
	return "", &NoRoleError{Agent: id}
}

// Grant returns the workspace tools agent id may call, sorted: those its
// role grants in its governing config commit, or, for a root agent, which
// has no role, every tool that commit describes. [Workspace.Session] gives
// a session these and no others.
func (ws *Workspace) Grant(ctx context.Context, id string) ([]string, error) {
	r, err := ws.readRefs(ctx)
	if err != nil {
		return nil, err
	}
	g, err := ws.grant(ctx, r, id)
	if err != nil {
		return nil, err
	}
	return g.tools, nil
}

// grant is what an agent may call and why.
type grant struct {
	role  string   // "" for a root
	tools []string // sorted, workspace tools only
}

func (g *grant) allows(tool string) bool { return slices.Contains(g.tools, tool) }

// grant is [Workspace.Grant] on the branches of r.
func (ws *Workspace) grant(ctx context.Context, r *refs, id string) (*grant, error) {
	role, err := ws.role(ctx, r, id)
	if err != nil {
		return nil, err
	}
	gov, err := ws.governing(ctx, r, id)
	if err != nil {
		return nil, err
	}
	cc, err := ws.loadConfig(ctx, gov, id)
	if err != nil {
		return nil, err
	}
	granted := sortedKeys(cc.tools)
	if role != "" {
		granted = slices.Sorted(slices.Values(cc.providers.Roles[role].Tools))
	}
	g := &grant{role: role}
	for _, t := range granted {
		if slices.Contains(toolNames, t) && !g.allows(t) {
			g.tools = append(g.tools, t)
		}
	}
	return g, nil
}

// NoRoleError says an agent below a root has no dispatch commit on its
// branch, so no role and no grant can be found for it.
type NoRoleError struct{ Agent string }

func (e *NoRoleError) Error() string { return e.refusal().Error() }

func (e *NoRoleError) refusal() *kernel.Refusal {
	return refusal("agent "+kernel.Quote(e.Agent)+" has no dispatch commit on its branch, so no role", "agents dispatched with shelter")
}

// NotGrantedError refuses a call of a workspace tool that the caller's
// role does not grant.
type NotGrantedError struct {
	Tool    string
	Agent   string
	Role    string   // "" for a root agent
	Granted []string // sorted
}

func (e *NotGrantedError) Error() string { return e.refusal().Error() }

func (e *NotGrantedError) refusal() *kernel.Refusal {
	who := "root agent"
	if e.Role != "" {
		who = "role " + kernel.Quote(e.Role)
	}
	r := refusal("not granted to agent "+kernel.Quote(e.Agent)+" by its "+who+" in its governing config", e.Granted...)
	r.Command = e.Tool
	return r
}
