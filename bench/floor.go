package bench

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// floorEnv is the environment of the bare runner: the host variables a
// host-profile session copies by name, so that both sides start programs
// with the same PATH and HOME.
func floorEnv() expand.Environ {
	var pairs []string
	for _, name := range []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TZ", "TERM"} {
		if v, ok := os.LookupEnv(name); ok {
			pairs = append(pairs, name+"="+v)
		}
	}
	return expand.ListEnviron(pairs...)
}

// newFloor is the floor's session: one mvdan/sh runner writing to stdout
// and stderr, its state kept from one run to the next as a session's is.
func newFloor(stdout, stderr io.Writer) (*interp.Runner, error) {
	return interp.New(interp.StdIO(nil, stdout, stderr), interp.Env(floorEnv()))
}

// runFloor is the floor's call: parse the script with a new parser and
// run it on r. It returns the exit status; err is a parse error or what
// the runner reports other than a status.
func runFloor(ctx context.Context, r *interp.Runner, script string) (int, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		return 0, err
	}
	err = r.Run(ctx, f)
	var status interp.ExitStatus
	if errors.As(err, &status) {
		return int(status), nil
	}
	return 0, err
}
