package workspace

import (
	"context"
	"fmt"
	"strings"
)

// Branch namespaces in repo.git.
const (
	agentRefs  = "refs/heads/agents/"
	configRefs = "refs/heads/config/"
)

// refs is the workspace's branches at one moment, read by one git process:
// which agents and configs exist and where their tips are. An operation
// reads it once and answers every such question from it.
type refs struct {
	agents  map[string]string // agent id → tip commit
	configs map[string]string // config name → tip commit
}

// readRefs lists the agents/<id> and config/<name> branches. A branch under
// agents/ whose name is not shaped like an id is no agent.
func (ws *Workspace) readRefs(ctx context.Context) (*refs, error) {
	lines, err := ws.git.lines(ctx, "", "for-each-ref", "--format=%(objectname) %(refname)", agentRefs, configRefs)
	if err != nil {
		return nil, err
	}
	r := &refs{agents: map[string]string{}, configs: map[string]string{}}
	for _, l := range lines {
		sha, ref, _ := strings.Cut(l, " ")
		if id, ok := strings.CutPrefix(ref, agentRefs); ok {
			if IsID(id) {
				r.agents[id] = sha
			}
		} else if name, ok := strings.CutPrefix(ref, configRefs); ok {
			r.configs[name] = sha
		}
	}
	return r, nil
}

// agentIDs returns the ids of the agents, sorted (a parent before its
// children).
func (r *refs) agentIDs() []string { return sortedKeys(r.agents) }

// configNames returns the names of the config branches, sorted.
func (r *refs) configNames() []string { return sortedKeys(r.configs) }

// checkAgent refuses an id with no branch.
func (r *refs) checkAgent(id string) error {
	if _, ok := r.agents[id]; !ok {
		return &UnknownAgentError{Agent: id}
	}
	return nil
}

// Agents returns the ids of every agent of the workspace, sorted (a parent
// before its children).
func (ws *Workspace) Agents(ctx context.Context) ([]string, error) {
	r, err := ws.readRefs(ctx)
	if err != nil {
		return nil, err
	}
	return r.agentIDs(), nil
}

// Configs returns the names of the config branches, sorted.
func (ws *Workspace) Configs(ctx context.Context) ([]string, error) {
	r, err := ws.readRefs(ctx)
	if err != nil {
		return nil, err
	}
	return r.configNames(), nil
}

// names reads the `name` file at the tip of every agent branch and
// returns id → name (agents without a name are left out).
func (ws *Workspace) names(ctx context.Context, r *refs) (map[string]string, error) {
	ids := r.agentIDs()
	specs := make([]string, len(ids))
	for i, id := range ids {
		specs[i] = r.agents[id] + ":name"
	}
	blobs, err := ws.git.catBlobs(ctx, specs)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for i, id := range ids {
		if name := strings.TrimSpace(string(blobs[i])); name != "" {
			names[id] = name
		}
	}
	return names, nil
}

// mintID returns a fresh id under parent ("" for a root) that no branch of
// r holds. The caller holds the workspace lock, so r stays true until the
// branch is made.
func (ws *Workspace) mintID(r *refs, parent string) (string, error) {
	for range 8 {
		seg, err := mintSegment(ws.now(), ws.random())
		if err != nil {
			return "", err
		}
		id := seg
		if parent != "" {
			id = parent + "-" + seg
		}
		if _, taken := r.agents[id]; !taken {
			return id, nil
		}
	}
	return "", fmt.Errorf("could not mint a fresh agent id under %q", parent)
}
