package builtins

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/shelter-sh/shelter/kernel"
)

var launchEnv = &launcher{
	name:  "env",
	usage: "[-i] [-u NAME]... [-] [NAME=VALUE]... [COMMAND [ARG]...]",
	about: "Run a command with a changed environment (-i: start empty; -u: unset NAME; NAME=VALUE: set), through the session's own rules; without a command, print the environment.",
	opts: []option{
		{short: 'i', long: "ignore-environment", about: "start with an empty environment"},
		{short: 'u', long: "unset", arg: "NAME", about: "remove NAME from the environment"},
	},
	dash:    "ignore-environment",
	assigns: true,
	check:   checkEnv,
	run:     runEnv,
}

func checkEnv(a *launchArgs) error {
	for _, name := range a.set["unset"] {
		if name == "" || strings.Contains(name, "=") {
			return &kernel.Refusal{Command: "env", What: "cannot unset " + kernel.Quote(name) + ": not a variable name", Allowed: []string{"a variable name, without ="}}
		}
	}
	return nil
}

func runEnv(ctx context.Context, c *kernel.Call, a *launchArgs) error {
	env := slices.Clone(c.Env)
	if a.has("ignore-environment") {
		env = env[:0]
	}
	for _, name := range a.set["unset"] {
		env = unsetEnv(env, name)
	}
	for _, kv := range a.assigns {
		name, _, _ := strings.Cut(kv, "=")
		env = append(unsetEnv(env, name), kv)
	}
	if len(a.command) == 0 {
		for _, kv := range env {
			fmt.Fprintln(c.Stdout, kv)
		}
		return nil
	}
	if env == nil {
		env = []string{} // empty, not the call's
	}
	code, err := c.Launch(ctx, a.argv(), kernel.LaunchOptions{Env: env, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr})
	return launched(ctx, code, err)
}

func unsetEnv(env []string, name string) []string {
	return slices.DeleteFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, name+"=")
	})
}
