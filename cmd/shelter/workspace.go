package main

import (
	"fmt"
	"io"

	"github.com/shelter-sh/shelter/kernel"
)

// runWorkspace runs `shelter workspace ARGS...` and returns the exit code.
func runWorkspace(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "shelter workspace: not yet supported")
	return 2
}

// workspaceSession returns what a session of agent id in workspace w needs:
// its tools, its caller identity and its working directory.
func workspaceSession(w, id string) (tools []kernel.Tool, caller kernel.Caller, dir string, err error) {
	return nil, kernel.Caller{}, "", fmt.Errorf("--workspace: not yet supported")
}
