package main

import (
	"fmt"
	"os"

	"github.com/shelter-sh/shelter/internal/toolfile"
	"github.com/shelter-sh/shelter/kernel"
)

// loadTools reads the --tools files. Bare executable names are looked up
// in shelter's own PATH, once, at load.
func loadTools(files []string) ([]kernel.Tool, error) {
	var tools []kernel.Tool
	for _, f := range files {
		ts, err := toolfile.Load(f, os.Getenv("PATH"))
		if err != nil {
			return nil, fmt.Errorf("shelter: --tools %v", err)
		}
		tools = append(tools, ts...)
	}
	return tools, nil
}
