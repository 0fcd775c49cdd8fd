package workspace

import (
	"context"
	"sort"
	"strings"
)

// Governing returns the commit of agent id's governing config: of the
// merge bases of the agent's branch with each config/* branch, the one
// every other is an ancestor of. It is derived each time, never stored. It
// fails with a [*GoverningError] when no config branch reaches the agent or
// when two of the merge bases are not ancestor-related, and with an
// [*UnknownAgentError] when the agent has no branch.
func (ws *Workspace) Governing(ctx context.Context, id string) (string, error) {
	r, err := ws.readRefs(ctx)
	if err != nil {
		return "", err
	}
	return ws.governing(ctx, r, id)
}

// governing is [Workspace.Governing] on the branches of r.
func (ws *Workspace) governing(ctx context.Context, r *refs, id string) (string, error) {
	if err := r.checkAgent(id); err != nil {
		return "", err
	}
	bases := map[string][]string{} // merge base → config branches
	var order []string
	for _, c := range r.configNames() {
		out, err := ws.git.run(ctx, "", nil, "merge-base", r.agents[id], r.configs[c])
		if exitStatus(err) == 1 {
			continue // unrelated histories
		}
		if err != nil {
			return "", err
		}
		base := strings.TrimSpace(string(out))
		if _, seen := bases[base]; !seen {
			order = append(order, base)
		}
		bases[base] = append(bases[base], "config/"+c)
	}
	switch len(order) {
	case 0:
		return "", &GoverningError{Agent: id}
	case 1:
		return order[0], nil
	}
	// The descendant-most candidate is the only one independent of the
	// others; several independent ones are unrelated.
	independent, err := ws.git.lines(ctx, "", append([]string{"merge-base", "--independent"}, order...)...)
	if err != nil {
		return "", err
	}
	if len(independent) == 1 {
		return independent[0], nil
	}
	var branches []string
	for _, base := range independent {
		branches = append(branches, bases[base]...)
	}
	sort.Strings(branches)
	return "", &GoverningError{Agent: id, Branches: branches}
}
