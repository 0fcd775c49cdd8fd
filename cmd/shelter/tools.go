package main

import (
	"fmt"

	"github.com/shelter-sh/shelter/kernel"
)

// loadTools reads the --tools files.
func loadTools(files []string) ([]kernel.Tool, error) {
	if len(files) > 0 {
		return nil, fmt.Errorf("shelter: --tools: not yet supported")
	}
	return nil, nil
}
