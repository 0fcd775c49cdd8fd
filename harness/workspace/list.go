package workspace

import (
	"context"
	"regexp"
	"sync"
)

// AgentInfo describes one agent of the workspace.
type AgentInfo struct {
	ID string `json:"id"`
	// Role is the role it was dispatched with; "" for a root agent.
	Role string `json:"role"`
	// Name is the name it wears, "" when none.
	Name string `json:"name"`
	// Parent is its parent's id; "" for a root agent.
	Parent string `json:"parent"`
	Depth  int    `json:"depth"`
	// Inbox is the number of undelivered messages.
	Inbox int `json:"inbox"`
}

// dispatchSubject matches the subject of a dispatch commit.
var dispatchSubject = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^dispatch: (\S+) \[([0-9a-zA-Z-]+)\]$`) })

// List describes every agent of the workspace, sorted by id (a parent
// before its children). An agent's role is read from its dispatch commit.
func (ws *Workspace) List(ctx context.Context) ([]AgentInfo, error) {
	r, err := ws.readRefs(ctx)
	if err != nil {
		return nil, err
	}
	ids := r.agentIDs()
	infos := make([]AgentInfo, 0, len(ids))
	if len(ids) == 0 {
		return infos, nil
	}
	names, err := ws.names(ctx, r)
	if err != nil {
		return nil, err
	}
	subjects, err := ws.git.lines(ctx, "", "log", "--format=%s", "--grep=^dispatch: ", "--branches=agents/*")
	if err != nil {
		return nil, err
	}
	roles := map[string]string{}
	for _, s := range subjects {
		if m := dispatchSubject().FindStringSubmatch(s); m != nil {
			roles[m[2]] = m[1]
		}
	}
	for _, id := range ids {
		n, err := ws.InboxCount(id)
		if err != nil {
			return nil, err
		}
		infos = append(infos, AgentInfo{
			ID:     id,
			Role:   roles[id],
			Name:   names[id],
			Parent: Parent(id),
			Depth:  Depth(id),
			Inbox:  n,
		})
	}
	return infos, nil
}
