package workspace

import (
	"errors"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/internal/refusal/refusaltest"
)

// TestRefusalLines checks every refusal of the workspace in the voice of
// every refusal (docs/embedding.md, "Tools"): one line, the command first
// ("workspace", or the tool refused), the offending word quoted, then
// "allowed:" and the pool, sorted, or "(none)". Each row is a typed
// refusal, its exact line, and the word it quotes ("" when it refuses a
// lack, not a word); a workspace tool and shelter's workspace verbs give
// the same line under their own name (AsRefusal).
func TestRefusalLines(t *testing.T) {
	const id = "20260301T120000Z-abcd0123"
	for _, tc := range []struct {
		err  error
		line string
		word string
	}{
		{&UnknownRoleError{Role: "ghost", Agent: id, Defined: []string{"worker", "compactor"}},
			"workspace: role 'ghost' is not defined in the providers.yaml governing agent '" + id + "'; allowed: compactor, worker", "ghost"},
		{&MissingSoulError{Role: "verifier", Agent: id},
			"workspace: role 'verifier' is defined but souls/verifier.md is missing from the config governing agent '" + id + "'; allowed: (none)", "verifier"},
		{&UndescribedToolError{Role: "sensor", Tool: "slack_read", Described: []string{"message", "bash"}},
			"workspace: role 'sensor' grants tool 'slack_read', which its governing config does not describe; allowed: bash, message", "slack_read"},
		{&DepthError{Agent: id, Depth: 3, Max: 2},
			"workspace: a child of agent '" + id + "' would be at depth 3, over max_depth 2 set in the governing workflow.yaml; allowed: (none)", id},
		{&BadNameError{What: "name", Name: "pale otter", Reason: "contains whitespace", Allow: nameAllow},
			"workspace: name 'pale otter' contains whitespace; allowed: " + nameAllow, "pale otter"},
		{&NameTakenError{Name: "pale-otter", Agent: id},
			"workspace: name 'pale-otter' is taken by agent " + id + "; allowed: a name no other agent wears", "pale-otter"},
		{&UnknownAgentError{Agent: "nosuch"},
			"workspace: no agent 'nosuch' in this workspace; allowed: a name an agent wears, an agent's id", "nosuch"},
		{&AmbiguousNameError{Name: "scout", Agents: []string{id + "-b", id + "-a"}},
			"workspace: agent name 'scout' is ambiguous: address one of the agents wearing it by id; allowed: " + id + "-a, " + id + "-b", "scout"},
		{&UnknownSkillError{Name: "nope", Available: []string{"notes", "bash"}},
			"workspace: unknown skill 'nope'; allowed: bash, notes", "nope"},
		{&UnknownSkillError{Name: "nope"},
			"workspace: unknown skill 'nope'; allowed: (none)", "nope"},
		{&UnknownConfigError{Name: "nope", Configs: []string{"main"}},
			"workspace: no config 'nope' in this workspace; allowed: main", "nope"},
		{&GoverningError{Agent: id},
			"workspace: agent '" + id + "' has no governing config: no config/* branch reaches its branch; allowed: (none)", id},
		{&GoverningError{Agent: id, Branches: []string{"config/a", "config/b"}},
			"workspace: agent '" + id + "' has no single governing config: config/a, config/b reach it through unrelated commits; allowed: a fork from one, a merge of them", id},
		{&ConfigError{Agent: id, File: "workflow.yaml", Err: "budgets.max_depth is -1"},
			"workspace: workflow.yaml in the config governing agent '" + id + "' is invalid: budgets.max_depth is -1; allowed: (none)", id},
		{&NoCallerError{Op: "dispatch"},
			"workspace: no calling agent; allowed: a session started with --workspace W --agent ID", ""},
		{&EmptyInputError{Op: "dispatch", Field: "goal"},
			"workspace: 'goal' is empty; allowed: a non-empty goal", "goal"},
		{&WorkspaceExistsError{Dir: "ws"},
			"workspace: 'ws' exists and is not empty; allowed: a new or empty directory", "ws"},
		{&NotWorkspaceError{Dir: "nowhere"},
			"workspace: 'nowhere' is not a workspace (no repo.git); allowed: a workspace made by `shelter workspace init nowhere`", "nowhere"},
		{&NoRoleError{Agent: id},
			"workspace: agent '" + id + "' has no dispatch commit on its branch, so no role; allowed: agents dispatched with shelter", id},
		{&NotGrantedError{Tool: "dispatch", Agent: id, Role: "compactor", Granted: []string{"message"}},
			"dispatch: not granted to agent '" + id + "' by its role 'compactor' in its governing config; allowed: message", "compactor"},
		{&NotGrantedError{Tool: "load_skill", Agent: id},
			"load_skill: not granted to agent '" + id + "' by its root agent in its governing config; allowed: (none)", id},
		{&RepoChangedError{File: "repo.git/config", Change: "the file was added"},
			"workspace: repo.git/config was changed outside shelter (the file was added), and git does not run until it holds only what shelter wrote; allowed: the file as shelter wrote it (docs/workspace.md, git)", ""},
		{&inputError{msg: "json: unknown field \"x\""},
			`workspace: invalid input: json: unknown field "x"; allowed: input the tool's schema describes`, ""},
	} {
		if got := tc.err.Error(); got != tc.line {
			t.Errorf("%T:\n got %s\nwant %s", tc.err, got, tc.line)
		}
		if !IsRefusal(tc.err) {
			t.Errorf("%T is not a refusal", tc.err)
		}
		r, ok := AsRefusal("shelter workspace new", tc.err)
		if !ok {
			t.Fatalf("%T: AsRefusal: not a refusal", tc.err)
		}
		command, _, _ := strings.Cut(tc.line, ": ")
		if want := "shelter workspace new" + strings.TrimPrefix(tc.line, command); r.Error() != want {
			t.Errorf("%T as the verb's:\n got %s\nwant %s", tc.err, r.Error(), want)
		}
		refusaltest.Check(t, r.Error(), r.Command, r.What, r.Allowed, tc.word)
	}
	if _, ok := AsRefusal("dispatch", errors.New("git: exit status 128")); ok {
		t.Error("a failure counts as a refusal")
	}
}
