package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Control files of a config commit, removed from every child's tree.
var controlPaths = []string{"providers.yaml", "souls", "workflow.yaml"}

const (
	toolsDir  = "descriptions/tools/"
	skillsDir = "descriptions/skills/"
	soulsDir  = "souls/"
)

// Providers is the decoded providers.yaml of a config commit.
type Providers struct {
	Roles map[string]Role `yaml:"roles"`
}

// Role is one entry of providers.yaml: who runs the role and which tools
// it grants.
type Role struct {
	Provider string   `yaml:"provider"`
	Model    string   `yaml:"model"`
	Tools    []string `yaml:"tools"`
}

// Workflow is the decoded workflow.yaml of a config commit.
type Workflow struct {
	Budgets struct {
		// MaxDepth is the deepest a child may be (0: no dispatch at all);
		// nil when not set, and then there is no limit.
		MaxDepth *int `yaml:"max_depth"`
	} `yaml:"budgets"`
}

// ParseProviders decodes providers.yaml strictly: an unknown key anywhere
// is an error. The error is one line.
func ParseProviders(data []byte) (*Providers, error) {
	var p Providers
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil && !errors.Is(err, io.EOF) {
		return nil, oneLine(err)
	}
	return &p, nil
}

// ParseWorkflow decodes workflow.yaml. The error is one line.
func ParseWorkflow(data []byte) (*Workflow, error) {
	var w Workflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		return nil, oneLine(err)
	}
	if m := w.Budgets.MaxDepth; m != nil && *m < 0 {
		return nil, fmt.Errorf("budgets.max_depth is %d; give 0 or more, or leave it out for no limit", *m)
	}
	return &w, nil
}

func oneLine(err error) error {
	fields := strings.Fields(err.Error())
	return errors.New(strings.Join(fields, " "))
}

// configCommit is what a dispatch needs from a governing config commit.
type configCommit struct {
	commit    string
	providers *Providers
	workflow  *Workflow
	souls     map[string]treeEntry // role → souls/<role>.md
	tools     map[string]treeEntry // tool → descriptions/tools/<tool>.json
	skills    map[string]treeEntry // name → descriptions/skills/<name>.md
}

// loadConfig reads the control files of commit with two git processes: the
// listing and, in one batch, providers.yaml and workflow.yaml. agent names
// the agent it governs, for error messages.
func (ws *Workspace) loadConfig(ctx context.Context, commit, agent string) (*configCommit, error) {
	entries, err := ws.git.lsTree(ctx, commit, "")
	if err != nil {
		return nil, err
	}
	cc := &configCommit{
		commit:    commit,
		providers: &Providers{},
		workflow:  &Workflow{},
		souls:     map[string]treeEntry{},
		tools:     map[string]treeEntry{},
		skills:    map[string]treeEntry{},
	}
	var present []string // of providers.yaml and workflow.yaml
	for _, e := range entries {
		dir, base := path.Split(e.path)
		switch {
		case e.path == "providers.yaml" || e.path == "workflow.yaml":
			present = append(present, e.path)
		case dir == soulsDir && strings.HasSuffix(base, ".md"):
			cc.souls[strings.TrimSuffix(base, ".md")] = e
		case dir == toolsDir && strings.HasSuffix(base, ".json"):
			cc.tools[strings.TrimSuffix(base, ".json")] = e
		case dir == skillsDir && strings.HasSuffix(base, ".md"):
			cc.skills[strings.TrimSuffix(base, ".md")] = e
		}
	}
	specs := make([]string, len(present))
	for i, f := range present {
		specs[i] = commit + ":" + f
	}
	blobs, err := ws.git.catBlobs(ctx, specs)
	if err != nil {
		return nil, err
	}
	for i, f := range present {
		switch f {
		case "providers.yaml":
			cc.providers, err = ParseProviders(blobs[i])
		case "workflow.yaml":
			cc.workflow, err = ParseWorkflow(blobs[i])
		}
		if err != nil {
			return nil, &ConfigError{Agent: agent, File: f, Err: err.Error()}
		}
	}
	return cc, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
