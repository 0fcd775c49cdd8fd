package kernel

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// innerImports is the layout doc.go describes: each inner package of
// kernel/internal, and the inner packages it may import. A package of the
// table that does not exist yet is fine; one missing from it is not.
var innerImports = map[string][]string{
	"shast":       nil,
	"mvdanpriv":   nil,
	"mvdancanary": nil,
	"fsroot":      nil,
	"jobtable":    nil,
	"budget":      nil,
	"rewrite":     {"shast"},
	"static":      {"shast"},
	"bashfmt":     {"shast"},
	"bashcompat":  {"bashfmt", "rewrite", "shast"},
}

// TestLayout: no inner package imports package kernel, and inner packages
// import each other only as innerImports allows.
func TestLayout(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	const kernelPath = "github.com/shelter-sh/shelter/kernel"
	const innerPrefix = kernelPath + "/internal/"
	out, err := exec.Command(goCmd, "list", "-deps", "-json", "./internal/...").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	inner := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Deps       []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name, ok := strings.CutPrefix(p.ImportPath, innerPrefix)
		if !ok {
			continue
		}
		inner++
		if slices.Contains(p.Deps, kernelPath) {
			t.Errorf("%s imports package kernel", name)
		}
		allowed, known := innerImports[name]
		if !known {
			t.Errorf("%s is no layer of the table: add it to innerImports and to doc.go", name)
			continue
		}
		for _, imp := range p.Imports {
			if dep, ok := strings.CutPrefix(imp, innerPrefix); ok && !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s; it may import %v", name, dep, allowed)
			}
		}
	}
	if inner == 0 {
		t.Error("go list found no inner package")
	}
}
