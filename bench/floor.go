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

// floorRunner is the floor's session: one mvdan/sh parser and runner,
// made once and kept from one call to the next as a session keeps its
// own, so that the floor does no more work per call than it must.
type floorRunner struct {
	parser *syntax.Parser
	runner *interp.Runner
	walk   bool // walk the parsed script once before running it
}

// newFloor makes the floor's session, writing to stdout and stderr.
func newFloor(stdout, stderr io.Writer) (*floorRunner, error) {
	r, err := interp.New(interp.StdIO(nil, stdout, stderr), interp.Env(floorEnv()))
	if err != nil {
		return nil, err
	}
	return &floorRunner{parser: syntax.NewParser(syntax.Variant(syntax.LangBash)), runner: r}, nil
}

// newGuardFloor is the floor of a guarded shell: a bare runner that also
// does the least a shell checking every command must do. It walks each
// parsed script once before running any of it (a static pass that looks
// at every node and judges none), and every simple command passes through
// a call handler that lets it by (the check at run time, for words known
// only then). shelter does both and more; what it costs above this floor
// is its own work.
func newGuardFloor(stdout, stderr io.Writer) (*floorRunner, error) {
	r, err := interp.New(interp.StdIO(nil, stdout, stderr), interp.Env(floorEnv()), interp.CallHandler(letBy))
	if err != nil {
		return nil, err
	}
	return &floorRunner{parser: syntax.NewParser(syntax.Variant(syntax.LangBash)), runner: r, walk: true}, nil
}

// letBy is the guard floor's call handler: it looks at the command and
// runs it as it is.
func letBy(ctx context.Context, args []string) ([]string, error) {
	_ = interp.HandlerCtx(ctx)
	return args, nil
}

// visited counts the nodes the guard floor's walks met, so that the walk
// is not optimised away.
var visited int

func countNode(syntax.Node) bool {
	visited++
	return true
}

// run is the floor's call: parse the script and run it. It returns the
// exit status; err is a parse error or what the runner reports other
// than a status.
func (f *floorRunner) run(ctx context.Context, script string) (int, error) {
	file, err := f.parser.Parse(strings.NewReader(script), "")
	if err != nil {
		return 0, err
	}
	if f.walk {
		syntax.Walk(file, countNode)
	}
	err = f.runner.Run(ctx, file)
	var status interp.ExitStatus
	if errors.As(err, &status) {
		return int(status), nil
	}
	return 0, err
}
