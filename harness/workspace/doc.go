// Package workspace is shelter's git-backed agent workspace: agents kept as
// branches of one bare repository, each with a linked worktree, an inbox of
// messages and a pool of skills.
//
// A [Workspace] is opened with [Open] (or made with [Init]). Its operations
// are the three harness tools an agent calls from its shell —
// [Workspace.Dispatch] forks a sub-agent, [Workspace.Message] deposits a
// message in an agent's inbox, [Workspace.LoadSkill] copies a skill into
// the caller's worktree — and the operator's [Workspace.NewAgent] and
// [Workspace.List]. [Tools] exposes the first three as kernel tools.
//
// Roles, souls, tool descriptors and budgets live in config commits on
// config/<name> branches. Every agent is governed by the config commit its
// branch shares with the config branches ([Workspace.Governing]); that
// commit, never the caller's own tree, decides what a dispatch may do.
//
// A session of an agent ([Workspace.Session]) gets only the tools its
// role grants ([Workspace.Grant]). Messages are sealed by shelter, so
// [Workspace.Inbox] tells them from files put in an inbox by other means.
//
// Every check of an operation runs before its first write: a refusal
// leaves no branch, worktree or inbox behind. Refusals are errors whose
// Error() is one line naming what was wrong and what is allowed; [IsRefusal]
// tells them from failures. Git runs as a child process through package
// spawn with a hermetic environment: the host's git configuration is never
// read, and before every git process the repository's config and info/
// must hold only what shelter wrote ([RepoChangedError]).
package workspace
