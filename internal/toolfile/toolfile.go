// Package toolfile splits the YAML files `shelter --tools` loads at their
// top level: a mapping with `commands:` (wrapped commands, package
// wrapped) and `tools:` (harness tools, package harness), each optional,
// nothing else. It is the one reader of that top level; each section is
// then decoded by its own package.
package toolfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Sections is a tools file split at its top level. A section the file
// does not have is nil.
type Sections struct {
	Commands, Tools *yaml.Node
	// Empty is true when the file holds no document, or only null.
	Empty bool
}

// Error is a problem with the file's top level: FILE:LINE:COL: Msg.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// Split parses src, the content of file, and returns its sections. Errors
// are [*Error]s naming FILE:LINE:COL.
func Split(file string, src []byte) (Sections, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(src)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Sections{Empty: true}, nil
		}
		return Sections{}, syntaxError(file, err)
	}
	if len(doc.Content) == 0 {
		return Sections{Empty: true}, nil
	}
	top := doc.Content[0]
	for top.Kind == yaml.AliasNode && top.Alias != nil {
		top = top.Alias
	}
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return Sections{Empty: true}, nil
	}
	if top.Kind != yaml.MappingNode {
		return Sections{}, &Error{file, top.Line, top.Column, "want a mapping with the keys commands and/or tools"}
	}
	var s Sections
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i], top.Content[i+1]
		var section **yaml.Node
		switch key.Value {
		case "commands":
			section = &s.Commands
		case "tools":
			section = &s.Tools
		default:
			return Sections{}, &Error{file, key.Line, key.Column, fmt.Sprintf("unknown key '%s'; allowed: commands, tools", key.Value)}
		}
		if *section != nil {
			return Sections{}, &Error{file, key.Line, key.Column, fmt.Sprintf("key '%s' given twice", key.Value)}
		}
		*section = val
	}
	return s, nil
}

// yamlLine is compiled on first use: only a file that fails to parse
// needs it, and compiling it at init cost every start of the CLI.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// syntaxError gives a parse error of yaml.v3, which knows only the line,
// the file's position.
func syntaxError(file string, err error) error {
	msg := err.Error()
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{file, line, 1, m[2]}
	}
	return &Error{file, 1, 1, strings.TrimPrefix(msg, "yaml: ")}
}
