package workspace

// The input schemas of the workspace tools. Init writes them as the
// descriptors of the default config; [Tools] declares them.
const (
	DispatchSchema = `{
  "type": "object",
  "properties": {
    "role": {"type": "string", "minLength": 1, "description": "A role defined by your governing config (providers.yaml), e.g. worker."},
    "goal": {"type": "string", "minLength": 1, "description": "What the child agent is to do; written to its goal.md as given."},
    "name": {"type": "string", "description": "Optional name to address the child by: one path component, no whitespace, unique in the workspace."}
  },
  "required": ["role", "goal"],
  "additionalProperties": false
}
`
	MessageSchema = `{
  "type": "object",
  "properties": {
    "agent": {"type": "string", "minLength": 1, "description": "The recipient: an agent id, or a name worn by exactly one agent."},
    "content": {"type": "string", "description": "The message body."}
  },
  "required": ["agent", "content"],
  "additionalProperties": false
}
`
	LoadSkillSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 1, "description": "A skill of the workspace pool (W/skills/<name>/)."}
  },
  "required": ["name"],
  "additionalProperties": false
}
`
)

// Descriptions of the workspace tools, for agents and for help.
const (
	dispatchDescription  = "Fork a sub-agent: a new branch and worktree with its own goal, soul and tools, given by a role of your governing config. Answers its handle."
	messageDescription   = "Deposit a message in an agent's inbox, addressed by id or by name."
	loadSkillDescription = "Copy a skill of the workspace pool into your worktree at skills/<name>/."
)

// defaultConfig is the tree of the config commit Init makes.
func defaultConfig() map[string]string {
	return map[string]string{
		"providers.yaml": `# Roles agents of this workspace may dispatch. A role is valid when it
# has an entry here and souls/<role>.md in the same commit; every tool it
# grants needs descriptions/tools/<tool>.json. provider and model are read
# by the harness that runs the agents, not by shelter.
roles:
  worker:
    provider: default
    model: default
    tools: [dispatch, message, load_skill]
  compactor:
    provider: default
    model: default
    tools: [message]
`,
		"workflow.yaml": `budgets:
  max_depth: 4
`,
		"souls/worker.md": `You are a worker agent. Your goal is in goal.md and your messages arrive
in your inbox. Work in your worktree and commit what you make on your
branch. Hand a part that stands on its own to a sub-agent with dispatch;
report to the agent that dispatched you with message.
`,
		"souls/compactor.md": `You are a compactor. Read the history you are given and write a summary
short enough to replace it: decisions, open questions, facts a successor
needs. Send it with message to the agent that dispatched you.
`,
		"descriptions/tools/dispatch.json":   DispatchSchema,
		"descriptions/tools/message.json":    MessageSchema,
		"descriptions/tools/load_skill.json": LoadSkillSchema,
		"descriptions/skills/dispatch.md": `---
name: dispatch
description: "` + dispatchDescription + `"
---
dispatch --role worker --goal "Summarise docs/ into NOTES.md" [--name notes]

Answers {"status":"in_progress","handle":"<id>"}. The child starts from your
branch's last commit: commit what it should see first.
`,
		"descriptions/skills/message.md": `---
name: message
description: "` + messageDescription + `"
---
message --agent notes --content "Use the glossary in docs/terms.md"

Answers {"status":"deposited"}.
`,
		"descriptions/skills/load_skill.md": `---
name: load_skill
description: "` + loadSkillDescription + `"
---
load_skill --name NAME

Answers {"status":"loaded","path":"skills/NAME"}, or already_loaded when
your worktree has it.
`,
	}
}
