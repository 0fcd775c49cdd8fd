package kernel

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

var envBuiltin = &builtin{
	name:  "env",
	usage: "env [-i] [-u NAME]... [NAME=VALUE]... [--] [COMMAND [ARG]...]",
	about: "Run a command with a changed environment (-i: start empty; -u: unset NAME; NAME=VALUE: set), through the session's own rules; without a command, print the environment.",
	run:   runEnv,
}

var envFlags = []string{"--", "-i", "-u NAME"}

func runEnv(ctx context.Context, c *Call) error {
	env := slices.Clone(c.Env)
	args := c.Args[1:]
	// Options first, then assignments, then the command: as env(1).
	for len(args) > 0 && isFlag(args[0]) {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		switch {
		case a == "-i" || a == "--ignore-environment":
			env = env[:0]
			args = args[1:]
		case a == "-u" || a == "--unset" || strings.HasPrefix(a, "--unset=") || strings.HasPrefix(a, "-u"):
			name, used, ok := flagValue(args, 0, "-u", "--unset")
			if !ok || name == "" {
				return missingValue("env", a, "a variable name")
			}
			if strings.Contains(name, "=") {
				return &Refusal{Line: fmt.Sprintf("env: cannot unset '%s': not a variable name", name)}
			}
			env = unsetEnv(env, name)
			args = args[used:]
		default:
			return unknownFlag("env", a, envFlags...)
		}
	}
	if len(args) > 0 && args[0] == "-" {
		// The POSIX spelling of -i.
		env, args = env[:0], args[1:]
	}
	for len(args) > 0 {
		name, _, ok := strings.Cut(args[0], "=")
		if !ok || name == "" {
			break
		}
		env = append(unsetEnv(env, name), args[0])
		args = args[1:]
	}
	if len(args) == 0 {
		for _, kv := range env {
			fmt.Fprintln(c.Stdout, kv)
		}
		return nil
	}
	status, err := c.launchCall(ctx, args, env, c.Stdin, c.Stdout, c.Stderr)
	if err != nil {
		return err
	}
	return launched(ctx, status)
}

func unsetEnv(env []string, name string) []string {
	return slices.DeleteFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, name+"=")
	})
}
