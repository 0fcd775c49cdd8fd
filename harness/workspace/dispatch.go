package workspace

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
)

// DispatchInput is the input of dispatch.
type DispatchInput struct {
	// Role names a role of the caller's governing providers.yaml.
	Role string `json:"role"`
	// Goal is what the child is to do; it is written to goal.md as given.
	Goal string `json:"goal"`
	// Name optionally names the child; other agents may address it by it.
	Name string `json:"name,omitempty"`
}

// DispatchOutput is the answer of dispatch.
type DispatchOutput struct {
	Status string `json:"status"` // "in_progress"
	Handle string `json:"handle"` // the child's id
}

// Dispatch forks a child agent of caller with in.Role and in.Goal.
//
// Every check comes first, against the caller's governing config commit
// ([Workspace.Governing]): the role is defined and has a soul, every tool
// it grants is described, the child is within budgets.max_depth, the name
// is well formed and not worn. Only then it mints the child's id and makes
// the dispatch commit `dispatch: <role> [<child>]` on the caller's branch
// tip, as branch agents/<child>: control files removed, tool descriptors
// cut to the grant and taken from the governing commit, goal.md, soul.md
// and name written. It checks the branch out in the child's worktree and
// deposits the goal in the child's inbox as a message from caller.
//
// A refusal leaves nothing behind; so does a failure of the writes, which
// are undone as far as they went.
func (ws *Workspace) Dispatch(ctx context.Context, caller string, in DispatchInput) (DispatchOutput, error) {
	if caller == "" {
		return DispatchOutput{}, &NoCallerError{Op: "dispatch"}
	}
	if in.Role == "" {
		return DispatchOutput{}, &EmptyInputError{Op: "dispatch", Field: "role"}
	}
	if in.Goal == "" {
		return DispatchOutput{}, &EmptyInputError{Op: "dispatch", Field: "goal"}
	}
	// The lock makes the name check and the branch creation one step for
	// every process sharing the workspace.
	unlock, err := ws.lock()
	if err != nil {
		return DispatchOutput{}, err
	}
	defer unlock()

	plan, err := ws.planDispatch(ctx, caller, in)
	if err != nil {
		return DispatchOutput{}, err
	}
	if err := ws.writeDispatch(ctx, plan); err != nil {
		return DispatchOutput{}, errors.Join(err, ws.undoDispatch(plan))
	}
	return DispatchOutput{Status: "in_progress", Handle: plan.child}, nil
}

// dispatchPlan is everything the writes of a dispatch need, gathered by
// the checks.
type dispatchPlan struct {
	caller, child string
	in            DispatchInput
	base          string // the caller's branch tip
	soul          treeEntry
	remove        []string    // paths of the caller's tree the child does not get
	place         []treeEntry // descriptors of the governing commit the child gets
	branch        bool        // set once the branch exists, for undo
	worktree      bool        // set once the worktree exists, for undo
}

// planDispatch runs every check of a dispatch, in the contract's order, and
// touches nothing.
func (ws *Workspace) planDispatch(ctx context.Context, caller string, in DispatchInput) (*dispatchPlan, error) {
	r, err := ws.readRefs(ctx)
	if err != nil {
		return nil, err
	}
	gov, err := ws.governing(ctx, r, caller)
	if err != nil {
		return nil, err
	}
	cc, err := ws.loadConfig(ctx, gov, caller)
	if err != nil {
		return nil, err
	}
	// 1. The role: listed, with a soul in the same commit.
	role, ok := cc.providers.Roles[in.Role]
	if !ok {
		return nil, &UnknownRoleError{Role: in.Role, Agent: caller, Defined: sortedKeys(cc.providers.Roles)}
	}
	soul, ok := cc.souls[in.Role]
	if !ok {
		return nil, &MissingSoulError{Role: in.Role, Agent: caller}
	}
	// 2. Every granted tool described.
	grant := map[string]bool{}
	for _, t := range role.Tools {
		if _, ok := cc.tools[t]; !ok {
			return nil, &UndescribedToolError{Role: in.Role, Tool: t, Described: sortedKeys(cc.tools)}
		}
		grant[t] = true
	}
	// 3. The depth budget.
	if max := cc.workflow.Budgets.MaxDepth; max != nil && Depth(caller)+1 > *max {
		return nil, &DepthError{Agent: caller, Depth: Depth(caller) + 1, Max: *max}
	}
	// 4. The name.
	if in.Name != "" {
		if err := checkAgentName(in.Name); err != nil {
			return nil, err
		}
		names, err := ws.names(ctx, r)
		if err != nil {
			return nil, err
		}
		for _, id := range r.agentIDs() {
			if names[id] == in.Name {
				return nil, &NameTakenError{Name: in.Name, Agent: id}
			}
		}
	}

	plan := &dispatchPlan{caller: caller, in: in, base: r.agents[caller], soul: soul}
	// The cut: every descriptor and tool skill the grant does not name
	// goes, whether the caller's tree or the governing config holds it.
	parentFiles, err := ws.git.lsTree(ctx, plan.base, "descriptions")
	if err != nil {
		return nil, err
	}
	claimed := map[string]bool{}
	for t := range cc.tools {
		claimed[t] = true
	}
	for _, f := range parentFiles {
		if t, ok := strings.CutPrefix(f.path, toolsDir); ok && strings.HasSuffix(t, ".json") && !strings.Contains(t, "/") {
			claimed[strings.TrimSuffix(t, ".json")] = true
		}
	}
	for _, f := range parentFiles {
		if t, ok := strings.CutPrefix(f.path, toolsDir); ok && strings.HasSuffix(t, ".json") && !grant[strings.TrimSuffix(t, ".json")] {
			plan.remove = append(plan.remove, f.path)
		}
		if s, ok := strings.CutPrefix(f.path, skillsDir); ok && strings.HasSuffix(s, ".md") {
			name := strings.TrimSuffix(s, ".md")
			if claimed[name] && !grant[name] {
				plan.remove = append(plan.remove, f.path)
			}
		}
	}
	for _, t := range sortedKeys(grant) {
		plan.place = append(plan.place, cc.tools[t])
		if skill, ok := cc.skills[t]; ok {
			plan.place = append(plan.place, skill)
		}
	}

	// 5. The id, last of the checks: it must name no branch yet.
	if plan.child, err = ws.mintID(r, caller); err != nil {
		return nil, err
	}
	return plan, nil
}

// writeDispatch makes the child: the dispatch commit on its new branch,
// built by one git fast-import from the caller's tip, then the worktree
// and the inbox.
func (ws *Workspace) writeDispatch(ctx context.Context, p *dispatchPlan) error {
	var s importStream
	s.commit(agentRefs+p.child, p.base, "dispatch: "+p.in.Role+" ["+p.child+"]", ws.now())
	for _, f := range slices.Concat(controlPaths, p.remove) {
		s.remove(f)
	}
	for _, e := range p.place {
		s.place(e.mode, e.sha, e.path)
	}
	s.place("100644", p.soul.sha, "soul.md")
	s.write("goal.md", p.in.Goal)
	s.write("name", p.in.Name)
	if err := s.run(ctx, ws.git); err != nil {
		return err
	}
	p.branch = true
	if _, err := ws.git.run(ctx, "", nil, "worktree", "add", "-q", ws.Worktree(p.child), "agents/"+p.child); err != nil {
		return err
	}
	p.worktree = true
	_, err := ws.deposit(p.child, p.caller, p.in.Goal)
	return err
}

// undoDispatch removes what a failed dispatch created.
func (ws *Workspace) undoDispatch(p *dispatchPlan) error {
	ctx := context.Background()
	var errs []error
	if p.worktree {
		if _, err := ws.git.run(ctx, "", nil, "worktree", "remove", "--force", ws.Worktree(p.child)); err != nil {
			errs = append(errs, err)
		}
	}
	if p.branch {
		if _, err := ws.git.run(ctx, "", nil, "branch", "-D", "-q", "agents/"+p.child); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(ws.inbox(p.child)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
