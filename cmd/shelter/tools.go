package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/internal/refusal"
	"github.com/shelter-sh/shelter/internal/toolfile"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/mcp"
	"github.com/shelter-sh/shelter/wrapped"
)

// loadTools reads the --tools files: wrapped commands from `commands:`,
// harness tools from `tools:`. Bare executable names are looked up in
// shelter's own PATH, once, at load.
func loadTools(files []string) ([]kernel.Tool, error) {
	var tools []kernel.Tool
	for _, f := range files {
		ts, err := loadToolFile(f, os.Getenv("PATH"))
		if err != nil {
			return nil, fmt.Errorf("shelter: --tools %v", err)
		}
		tools = append(tools, ts...)
	}
	return tools, nil
}

// loadToolFile reads one tools file. Unlike the packages' own loaders, it
// refuses a file that declares nothing: on the command line that is a
// mistake.
func loadToolFile(file, path string) ([]kernel.Tool, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %v", file, pe.Err)
		}
		return nil, err
	}
	sections, err := toolfile.Split(file, src)
	if err != nil {
		return nil, err
	}
	if sections.Empty {
		return nil, fmt.Errorf("%s:1:1: empty file; want a mapping with the keys commands and/or tools", file)
	}
	var tools []kernel.Tool
	if sections.Commands != nil {
		cmds, err := wrapped.DecodeYAML(file, sections.Commands, wrapped.LoadOptions{Path: path})
		if err != nil {
			return nil, err
		}
		for _, c := range cmds {
			tools = append(tools, c)
		}
	}
	ts, err := harness.DecodeYAML(file, sections.Tools)
	if err != nil {
		return nil, err
	}
	return append(tools, ts...), nil
}

// printFormat is `shelter tools --format F`: the tools of the server
// `shelter serve` on stdio makes of the same flags, rendered for an API.
func printFormat(o *options, stdout, stderr io.Writer) int {
	f := mcp.Format(o.format)
	if !slices.Contains(mcp.Formats(), f) {
		var formats []string
		for _, f := range mcp.Formats() {
			formats = append(formats, string(f))
		}
		return refuse(stderr, "shelter tools", "--format: unknown format "+refusal.Quote(o.format), formats...)
	}
	if o.json {
		fmt.Fprintln(stderr, "shelter tools: --json and --format each choose the output; give one")
		return 2
	}
	serveProfile(o)
	k, sessOpts, status := o.kernel(stderr)
	if status != 0 {
		return status
	}
	srv, err := newServer(o, k, sessOpts)
	if err != nil {
		fmt.Fprintf(stderr, "shelter tools: %v\n", err)
		return 2
	}
	defer srv.Close()
	out, err := mcp.Render(srv.Defs(), f)
	if err != nil {
		fmt.Fprintf(stderr, "shelter tools: %v\n", err)
		return 2
	}
	stdout.Write(out)
	return 0
}
