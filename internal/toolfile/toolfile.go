// Package toolfile reads the YAML files `shelter --tools` loads: a mapping
// with `commands:` (wrapped commands, package wrapped) and `tools:`
// (harness tools, package harness), each optional, nothing else.
package toolfile

import (
	"bytes"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/shelter-sh/shelter/harness"
	"github.com/shelter-sh/shelter/kernel"
	"github.com/shelter-sh/shelter/wrapped"
)

// Load reads one tools file. path is the $PATH in which bare executable
// names of wrapped commands are looked up. Every error names
// FILE:LINE:COL.
func Load(file, path string) ([]kernel.Tool, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(file, src, path)
}

// Parse is Load for a file already read.
func Parse(file string, src []byte, path string) ([]kernel.Tool, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		if err.Error() == "EOF" {
			return nil, fmt.Errorf("%s:1:1: empty file; want a mapping with the keys commands and/or tools", file)
		}
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s:1:1: empty file; want a mapping with the keys commands and/or tools", file)
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d:%d: want a mapping with the keys commands and/or tools", file, top.Line, top.Column)
	}
	var tools []kernel.Tool
	seen := map[string]bool{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i], top.Content[i+1]
		if seen[key.Value] {
			return nil, fmt.Errorf("%s:%d:%d: key '%s' given twice", file, key.Line, key.Column, key.Value)
		}
		seen[key.Value] = true
		switch key.Value {
		case "commands":
			cmds, err := wrapped.DecodeYAML(file, val, wrapped.LoadOptions{Path: path})
			if err != nil {
				return nil, err
			}
			for _, c := range cmds {
				tools = append(tools, c)
			}
		case "tools":
			ts, err := harness.DecodeYAML(file, val)
			if err != nil {
				return nil, err
			}
			tools = append(tools, ts...)
		default:
			return nil, fmt.Errorf("%s:%d:%d: unknown key '%s'; allowed: commands, tools", file, key.Line, key.Column, key.Value)
		}
	}
	return tools, nil
}
