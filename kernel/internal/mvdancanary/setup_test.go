package mvdancanary

import "os"

// setupCanaries justify what a session does to its runner before the
// first call.
var setupCanaries = []canary{{
	Name:   "home-from-host",
	Bug:    "a runner sets HOME from the host when the environment has none",
	Gap:    "home-from-host",
	Code:   "kernel/session.go: forgetResetVars",
	Env:    []string{"PATH=" + os.Getenv("PATH")},
	Script: `[[ -v HOME ]] && echo set || echo unset`,
	Bash:   "unset\n",
	Mvdan:  "set\n",
}, {
	Name:   "gid-variable",
	Bug:    "a runner makes GID, readonly, which bash does not have",
	Gap:    "gid-variable",
	Code:   "kernel/session.go: forgetResetVars",
	Script: `[[ -v GID ]] && echo set || echo unset`,
	Bash:   "unset\n",
	Mvdan:  "set\n",
}, {
	Name:   "pwd-unexported",
	Bug:    "a runner's PWD is not exported, and cd unexports it",
	Gap:    "pwd-unexported",
	Code:   "kernel/env.go: childEnv",
	Script: `export PWD; cd /; env | grep -c '^PWD=' || :`,
	Bash:   "1\n",
	Mvdan:  "0\n",
}, {
	Name:   "clock-variables",
	Bug:    "SECONDS, EPOCHSECONDS and EPOCHREALTIME are never set",
	Gap:    "shell-variables",
	Code:   "kernel/script.go: sessionEnviron.shellVar",
	Script: `[[ $SECONDS$EPOCHSECONDS =~ ^[0-9]+$ ]] && echo set || echo unset`,
	Bash:   "set\n",
	Mvdan:  "unset\n",
}}
